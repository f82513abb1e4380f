"""Helpers for the agent's note documents: dates, checks, effective importance."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from bson import ObjectId

from memory_app.notes.lib.constants import DEFAULT_DECAY_RATE, DEFAULT_IMPORTANCE, SECTIONS
from memory_app.notes.lib.domain import mistyped_fields
from memory_app.notes.lib.errors import InvalidNote
from memory_app.notes.lib.importance import decayed_importance
from qqweb.lib.mongo.safe_values import stored_value_problem

# A note id that is safe in a URL, a file name and a log line: the agent's two forms
# (``note_`` + 12 hex, 16 hex) and the ids tests and older tools used, never a path.
SAFE_NOTE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")


def utcnow_naive() -> datetime:
    """The agent's dates: UTC, without tzinfo, to the millisecond (what a BSON date keeps,
    so a value we write compares equal to the value we read back)."""
    now = datetime.now(UTC).replace(tzinfo=None)
    return now.replace(microsecond=now.microsecond // 1000 * 1000)


def effective_importance(doc: Mapping[str, Any], now: datetime) -> float:
    """The decayed importance of a document, as the agent's retrieval sees it today."""
    created = doc.get("created_at") or now
    importance = doc.get("importance", DEFAULT_IMPORTANCE)
    return round(
        decayed_importance(
            importance=float(importance) if isinstance(importance, int | float) else 0.5,
            access_count=int(doc.get("access_count") or 0),
            created_at=created,
            last_accessed=doc.get("last_accessed"),
            decay_rate=float(doc.get("decay_rate") or DEFAULT_DECAY_RATE),
            now=now,
        ),
        4,
    )


def within(value: float, low: float | None, high: float | None) -> bool:
    return (low is None or value >= low) and (high is None or value <= high)


def validate_importance(importance: Any) -> None:
    if isinstance(importance, bool) or not isinstance(importance, int | float):
        raise InvalidNote("importance", "must be a number")
    if not 0.0 <= float(importance) <= 1.0:
        raise InvalidNote("importance", "must be between 0 and 1")


def validate_note_fields(
    *,
    note_id: str,
    content: str,
    section: str | None,
    importance: float,
    embedding: list[float] | None,
) -> None:
    if not isinstance(note_id, str) or not note_id.strip():
        raise InvalidNote("note_id", "must be a non-empty string")
    if not isinstance(content, str) or not content.strip():
        raise InvalidNote("content", "must be a non-empty string")
    if section is not None and section not in SECTIONS:
        raise InvalidNote("section", f"must be one of {', '.join(SECTIONS)}")
    validate_importance(importance)
    if embedding is not None and not isinstance(embedding, list):
        raise InvalidNote("embedding", "must be a list of floats (may be empty)")


def validate_agent_document(doc: Mapping[str, Any]) -> None:
    validate_note_fields(
        note_id=doc.get("note_id", ""),
        content=doc.get("content", ""),
        section=doc.get("section"),
        importance=doc.get("importance", DEFAULT_IMPORTANCE),
        embedding=doc.get("embedding", []),
    )
    for field in ("created_at", "updated_at"):
        value = doc.get(field)
        if not isinstance(value, datetime) or value.tzinfo is not None:
            raise InvalidNote(field, "must be a naive UTC datetime")
    last = doc.get("last_accessed")
    if last is not None and (not isinstance(last, datetime) or last.tzinfo is not None):
        raise InvalidNote("last_accessed", "must be a naive UTC datetime or None")


def note_document_problem(doc: Mapping[str, Any], *, dimension: int | None) -> str:
    """Why a whole note document from outside (an import) may not be written, in words
    ('' when it may): the checks of :func:`validate_agent_document` (what qqweb's own
    inserts must pass), and what the agent's and qqweb's code assume of a stored note: no
    operator or dotted key and only finite numbers anywhere, an ObjectId ``_id``, a
    ``note_id`` of a safe form, every contract field of its type, a non-negative
    ``decay_rate`` and ``access_count``, and an embedding of numbers of ``dimension``
    (None: any) unless it is empty (the agent's embedding failed)."""
    problem = stored_value_problem(doc)
    if problem:
        return problem
    if "_id" in doc and not isinstance(doc["_id"], ObjectId):
        return f"its _id is a {type(doc['_id']).__name__}, not an ObjectId"
    note_id = doc.get("note_id")
    if note_id is None:
        return "it has no note_id"
    if not isinstance(note_id, str):
        return f"its note_id is a {type(note_id).__name__}, not a string"
    if not SAFE_NOTE_ID.fullmatch(note_id):
        return (
            f"its note_id {note_id[:80]!r} is not of a safe form (letters, digits, '_' and "
            "'-', at most 128, starting with a letter or digit)"
        )
    mistyped = mistyped_fields(doc)
    if mistyped:
        return f"these fields are not of the contract's type: {', '.join(mistyped)}"
    try:
        validate_agent_document(doc)
    except InvalidNote as e:
        return f"its {e.field} {e.message}"
    for field in ("decay_rate", "access_count"):
        if field in doc and doc[field] < 0:
            return f"its {field} is negative"
    if not all(isinstance(s, Mapping) for s in doc.get("source_history", [])):
        return "its source_history holds values that are not objects"
    embedding = doc.get("embedding", [])
    if not set(map(type, embedding)) <= {float, int}:
        return "its embedding holds values that are not numbers"
    if embedding and dimension is not None and len(embedding) != dimension:
        return (
            f"its embedding has {len(embedding)} dimensions, the notes' vectors {dimension}: "
            "configure the embedding model the agent used"
        )
    return ""
