"""A grace period from archival for notes a curator brought back.

A restored note comes back with its archived importance (plus a small boost) and its old
``created_at``, so its effective importance is still below the archival threshold and the
next archival pass would archive it again. A note brought back by undoing a merge or an
archive is in the same state. qqweb therefore stamps such a note with
``qqweb_keep_until`` (a BSON date, naive UTC, like every date of the agent's): until then,
our archival walk (``archival_candidates``: the audited job and the seed API's
``archive_low_importance``) leaves the note alone. Nothing else changes: decay, search and
retrieval see the note as they would without it.

The field lives on the note itself (the contract allows fields of ours, prefixed
``qqweb_``; the agent ignores it and its targeted writes keep it), so it travels with the
note, costs no second store and is dropped with it. The agent's own archival command does
not know the field and does not honour it.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

KEEP_UNTIL_FIELD = "qqweb_keep_until"
MAX_GRACE_DAYS = 3650


def keep_until(now: datetime, days: int) -> datetime | None:
    """The end of a grace of ``days`` from ``now`` (None for 0 days: no grace)."""
    if isinstance(days, bool) or not isinstance(days, int) or not 0 <= days <= MAX_GRACE_DAYS:
        raise ValueError(f"a grace period is 0 to {MAX_GRACE_DAYS} whole days")
    return now + timedelta(days=days) if days else None


def kept_from_archival(doc: Mapping[str, Any], now: datetime) -> bool:
    """True while the note's grace period runs (a missing or unreadable value: no grace)."""
    until = doc.get(KEEP_UNTIL_FIELD)
    return isinstance(until, datetime) and until > now


def with_grace(doc: Mapping[str, Any], until: datetime | None) -> dict[str, Any]:
    """``doc`` with the grace period ``until`` (unchanged when there is none)."""
    out = dict(doc)
    if until is not None:
        out[KEEP_UNTIL_FIELD] = until
    return out
