"""Helpers for the agent's note documents: dates, checks, effective importance."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from .constants import DEFAULT_DECAY_RATE, DEFAULT_IMPORTANCE, SECTIONS
from .errors import InvalidNote
from .importance import decayed_importance


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
