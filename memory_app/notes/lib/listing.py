"""Filters, sorts and keyset cursors for the notes list, as pure functions.

Every value a user sends is typed and checked here before it reaches a query; text
search is a case-insensitive *escaped* regex, so nothing user-supplied becomes a MongoDB
operator. Paging is keyset on ``(sort field, note_id)``: page N costs what page 1 costs.
"""

from __future__ import annotations

import base64
import json
import math
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from memory_app.notes.lib.constants import SECTIONS
from memory_app.notes.lib.domain import Note
from memory_app.notes.lib.errors import InvalidQuery

SORT_FIELDS = {
    "importance": "importance",
    "created": "created_at",
    "updated": "updated_at",
    "last_accessed": "last_accessed",
    "access_count": "access_count",
}
SOURCE_TYPES = ("file", "conversation", "unknown")
MAX_PAGE = 200
MAX_STALE_DAYS = 36_500  # a hundred years: now minus that many days is still a date
INT64 = 2**63
NON_FINITE = ("nan", "inf", "-inf")  # how a cursor holds a stored value of these
LIST_FIELDS = {"_id": 0, "embedding": 0}


@dataclass
class NotesPage:
    """``offset``: how many notes of the list come before this page, and ``total``: how
    many it holds, when the read model counted them (None: the query path, which only
    knows the page)."""

    items: list[Note]
    next_cursor: str | None
    scanned: int = 0
    offset: int | None = None
    total: int | None = None


@dataclass(frozen=True)
class NotesCount:
    """How many notes a list holds: ``value`` exact, or a lower bound when ``capped``
    ("more than"), or the collection's metadata count when ``estimated``; None when the
    filter cannot be counted by the database (effective importance is computed while
    reading)."""

    value: int | None
    estimated: bool = False
    capped: bool = False


@dataclass(frozen=True)
class NoteFilter:
    section: str | None = None
    min_importance: float | None = None
    max_importance: float | None = None
    min_effective: float | None = None  # decayed importance, applied after the query
    max_effective: float | None = None
    # Strict upper bounds, as the Overview counts: a histogram bar is [0.1, 0.2), "would be
    # archived" is effective importance below the threshold; its links open these lists.
    importance_below: float | None = None
    effective_below: float | None = None
    created_after: datetime | None = None  # created_at > (a week's bar of the Overview)
    created_until: datetime | None = None  # created_at <=
    source_type: str | None = None
    source_file: str | None = None
    # No source type: no ``source``, or one without a ``source_type`` (or an empty one):
    # the notes the Overview counts as "(no source)".
    no_source: bool = False
    never_accessed: bool = False
    min_access: int | None = None  # read at least this many times (the promotion candidates)
    stale_days: int | None = None
    no_embedding: bool = False
    text: str | None = None

    def __post_init__(self) -> None:
        if self.section is not None and self.section not in SECTIONS:
            raise InvalidQuery("section", f"must be one of {', '.join(SECTIONS)}")
        for name in (
            "min_importance",
            "max_importance",
            "min_effective",
            "max_effective",
            "importance_below",
            "effective_below",
        ):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not 0.0 <= float(value) <= 1.0):
                raise InvalidQuery(name, "must be a number between 0 and 1")
        if self.source_type is not None and self.source_type not in SOURCE_TYPES:
            raise InvalidQuery("source_type", f"must be one of {', '.join(SOURCE_TYPES)}")
        if self.stale_days is not None and (
            not isinstance(self.stale_days, int)
            or isinstance(self.stale_days, bool)
            or not 0 <= self.stale_days <= MAX_STALE_DAYS
        ):
            raise InvalidQuery(
                "stale_days", f"must be a whole number of days from 0 to {MAX_STALE_DAYS}"
            )
        if self.min_access is not None and (
            not isinstance(self.min_access, int)
            or isinstance(self.min_access, bool)
            or self.min_access < 0
        ):
            raise InvalidQuery("min_access", "must be a whole number of reads, 0 or more")
        for name in ("created_after", "created_until"):
            if getattr(self, name) is not None and not isinstance(getattr(self, name), datetime):
                raise InvalidQuery(name, "must be a date and time")
        for name in ("source_file", "text"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or len(value) > 500):
                raise InvalidQuery(name, "must be text of at most 500 characters")

    @property
    def needs_decay(self) -> bool:
        return any(
            v is not None for v in (self.min_effective, self.max_effective, self.effective_below)
        )

    def effective_matches(self, value: float) -> bool:
        """The decayed importance ``value`` is within the filter's bounds."""
        low, high, below = self.min_effective, self.max_effective, self.effective_below
        return (
            (low is None or value >= low)
            and (high is None or value <= high)
            and (below is None or value < below)
        )


def build_query(flt: NoteFilter, now: datetime) -> dict[str, Any]:
    """The MongoDB filter for everything that can be filtered in the database."""
    clauses: list[dict[str, Any]] = []
    if flt.section is not None:
        clauses.append({"section": flt.section})
    importance: dict[str, float] = {}
    if flt.min_importance is not None:
        importance["$gte"] = float(flt.min_importance)
    if flt.max_importance is not None:
        importance["$lte"] = float(flt.max_importance)
    if flt.importance_below is not None:
        importance["$lt"] = float(flt.importance_below)
    if importance:
        clauses.append({"importance": importance})
    created: dict[str, datetime] = {}
    if flt.created_after is not None:
        created["$gt"] = _naive(flt.created_after)
    if flt.created_until is not None:
        created["$lte"] = _naive(flt.created_until)
    if created:
        clauses.append({"created_at": created})
    if flt.source_type is not None:
        clauses.append({"source.source_type": flt.source_type})
    if flt.source_file:
        clauses.append({"source.file_path": flt.source_file})
    if flt.no_source:  # null matches a missing field, and a source that is not a document
        clauses.append({"source.source_type": {"$in": [None, ""]}})
    if flt.never_accessed:
        clauses.append({"last_accessed": None})
    if flt.min_access is not None:
        clauses.append({"access_count": {"$gte": int(flt.min_access)}})
    if flt.stale_days is not None:
        cutoff = now - timedelta(days=flt.stale_days)
        clauses.append(
            {
                "$or": [
                    {"last_accessed": {"$lt": cutoff}},
                    {"last_accessed": None, "created_at": {"$lt": cutoff}},
                ]
            }
        )
    if flt.no_embedding:
        clauses.append(
            {
                "$or": [
                    {"embedding": {"$size": 0}},
                    {"embedding": None},
                    {"embedding": {"$exists": False}},
                ]
            }
        )
    if flt.text:  # at the start of a word, as the read model's list (replica/lists.py)
        pattern = r"(^|\W)" + re.escape(flt.text)
        clauses.append({"content": {"$regex": pattern, "$options": "i"}})
    if not clauses:
        return {}
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}


def _naive(value: datetime) -> datetime:
    """A date as the notes store them: UTC, without a time zone."""
    if value.tzinfo is None:
        return value
    return value.astimezone(UTC).replace(tzinfo=None)


def check_sort(sort: str, direction: str) -> tuple[str, int]:
    if sort not in SORT_FIELDS:
        raise InvalidQuery("sort", f"must be one of {', '.join(SORT_FIELDS)}")
    if direction not in ("asc", "desc"):
        raise InvalidQuery("direction", "must be asc or desc")
    return SORT_FIELDS[sort], (1 if direction == "asc" else -1)


def encode_cursor(value: Any, note_id: str) -> str:
    if isinstance(value, datetime):
        payload: Any = {"d": value.isoformat()}
    elif isinstance(value, float) and not math.isfinite(value):
        payload = {"f": str(value)}  # a stored NaN or infinity: "nan", "inf" or "-inf"
    else:
        payload = value
    raw = json.dumps([payload, note_id], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[Any, str]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        value, note_id = json.loads(raw)
        if isinstance(value, dict) and "f" in value:
            if value["f"] not in NON_FINITE:
                raise ValueError("bad value")
            value = float(value["f"])
        elif isinstance(value, dict):
            value = datetime.fromisoformat(value["d"])
        elif isinstance(value, bool) or (value is not None and not isinstance(value, int | float)):
            raise ValueError("bad value")
        elif isinstance(value, float) and not math.isfinite(value):
            raise ValueError("not a finite number")  # only ours, as {"f": "nan"}
        elif isinstance(value, int) and not -INT64 <= value < INT64:
            raise ValueError("more than 64 bits")  # no MongoDB number holds it
        if not isinstance(note_id, str) or len(note_id) > 300:
            raise ValueError("bad id")
    except (ValueError, TypeError, KeyError, AttributeError) as e:
        raise InvalidQuery("cursor", "is not a cursor this list gave out") from e
    return value, note_id


def after_cursor(field: str, direction: int, value: Any, note_id: str) -> dict[str, Any]:
    """Documents strictly after ``(value, note_id)`` in ``(field, note_id)`` order. MongoDB
    sorts null first, so descending runs end with the nulls, ascending starts with them."""
    id_op = "$gt" if direction == 1 else "$lt"
    if value is None:
        same = {field: None, "note_id": {id_op: note_id}}
        return {"$or": [same, {field: {"$ne": None}}]} if direction == 1 else same
    value_op = "$gt" if direction == 1 else "$lt"
    options: list[dict[str, Any]] = [
        {field: {value_op: value}},
        {field: value, "note_id": {id_op: note_id}},
    ]
    if direction == -1:
        options.append({field: None})
    return {"$or": options}
