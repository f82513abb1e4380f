"""The former home of the possible-update analysis, kept so that its callers' imports go on
working: everything is in :mod:`qqweb.lib.differences` now (one analysis of how two
texts differ, negations and opposites included)."""

from qqweb.lib.differences import (
    KINDS,
    Change,
    Difference,
    newer_and_older,
    tokens,
    update_changes,
)

__all__ = ["KINDS", "Change", "Difference", "newer_and_older", "tokens", "update_changes"]
