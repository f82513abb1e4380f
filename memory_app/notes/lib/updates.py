"""The former home of the possible-update analysis, kept so that its callers' imports go on
working: everything is in :mod:`memory_app.notes.lib.differences` now (one analysis of how two
texts differ, negations and opposites included)."""

from memory_app.notes.lib.differences import (
    KINDS,
    Change,
    Difference,
    newer_and_older,
    tokens,
    update_changes,
)

__all__ = ["KINDS", "Change", "Difference", "newer_and_older", "tokens", "update_changes"]
