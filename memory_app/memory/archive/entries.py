"""The agent's archive line: what it holds, how we build and check one, its reason kinds.

One JSON object per line with ``note_id``, ``content``, ``section``, ``importance``,
``reason``, ``archived_at``, ``original_created_at``, ``access_count``, ``metadata``, and
``source`` / ``source_history`` only when non-empty. Timestamps are NAIVE LOCAL ISO
strings (``datetime.now().isoformat()``): a ``Z`` or an offset crashes the agent's reader.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..errors import InvalidNote

if TYPE_CHECKING:
    from .file import ArchiveLine


def local_naive_iso(value: datetime | None = None) -> str:
    """``datetime.now().isoformat()``: what the agent writes and can read back."""
    return (value or datetime.now()).replace(tzinfo=None).isoformat()


def validate_archive_entry(entry: dict[str, Any]) -> None:
    for name in ("note_id", "content", "reason", "archived_at"):
        if not isinstance(entry.get(name), str) or not entry[name]:
            raise InvalidNote(name, "is required in an archive line")
    for name in ("archived_at", "original_created_at", "restored_at"):
        value = entry.get(name)
        if value is None:
            continue
        if not isinstance(value, str) or value.endswith("Z"):
            raise InvalidNote(name, "must be a naive local ISO string")
        parsed = datetime.fromisoformat(value)
        if parsed.tzinfo is not None:
            raise InvalidNote(name, "must not carry a timezone (the agent cannot read it)")


@dataclass(frozen=True)
class ArchivedNote:
    note_id: str
    content: str
    section: str | None
    importance: float
    reason: str
    archived_at: str
    original_created_at: str | None
    access_count: int
    metadata: dict[str, Any]
    source: dict[str, Any] | None
    source_history: list[dict[str, Any]]
    restored: bool
    restored_at: str | None
    line_number: int

    @classmethod
    def from_line(cls, line: ArchiveLine) -> ArchivedNote:
        e = line.entry or {}
        importance = e.get("importance", 0.0)
        return cls(
            note_id=str(e.get("note_id", "")),
            content=str(e.get("content", "")),
            section=e.get("section"),
            importance=float(importance) if isinstance(importance, int | float) else 0.0,
            reason=str(e.get("reason", "")),
            archived_at=str(e.get("archived_at", "")),
            original_created_at=e.get("original_created_at"),
            access_count=int(e.get("access_count") or 0),
            metadata=dict(e.get("metadata") or {}),
            source=e.get("source") or None,
            source_history=list(e.get("source_history") or []),
            restored=bool(e.get("restored")),
            restored_at=e.get("restored_at"),
            line_number=line.number,
        )


def new_note_id() -> str:
    return f"note_{uuid.uuid4().hex[:12]}"


def archive_line_for(
    doc: dict[str, Any], reason: str, now: datetime | None = None
) -> dict[str, Any]:
    """The agent's archive line for a MongoDB document (the embedding is not kept)."""
    created = doc.get("created_at")
    line: dict[str, Any] = {
        "note_id": str(doc["note_id"]),
        "content": str(doc.get("content", "")),
        "section": doc.get("section"),
        "importance": doc.get("importance", 0.5),
        "reason": reason,
        "archived_at": local_naive_iso(now),
        "original_created_at": created.isoformat() if isinstance(created, datetime) else None,
        "access_count": int(doc.get("access_count") or 0),
        "metadata": dict(doc.get("metadata") or {}),
    }
    if doc.get("source"):
        line["source"] = doc["source"]
    if doc.get("source_history"):
        line["source_history"] = doc["source_history"]
    return line


def reason_kind(reason: str) -> str:
    """Group the agent's reasons: ``importance_decay_0.031`` -> ``importance_decay``."""
    if reason.startswith("importance_decay_"):
        return "importance_decay"
    if reason.startswith("Consolidated with "):
        return "consolidated"
    return reason or "unknown"
