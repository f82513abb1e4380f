"""The agent's archive line: what it holds, how we build and check one, its reason kinds.

One JSON object per line with ``note_id``, ``content``, ``section``, ``importance``,
``reason``, ``archived_at``, ``original_created_at``, ``access_count``, ``metadata``, and
``source`` / ``source_history`` only when non-empty. Timestamps are NAIVE LOCAL ISO
strings (``datetime.now().isoformat()``): a ``Z`` or an offset crashes the agent's reader.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, TypeGuard

from memory_app.notes.lib.constants import SECTIONS
from memory_app.notes.lib.documents import SAFE_NOTE_ID
from memory_app.notes.lib.errors import InvalidNote
from qqweb.lib.mongo.safe_values import datetime_problem, stored_value_problem


@dataclass(frozen=True)
class ArchiveLine:
    """One line of the file (1-based ``number``, without its newline): parsed (``entry``)
    or not (``error`` says why). ``raw`` is its text for display (invalid UTF-8 shown as
    U+FFFD); ``data`` its exact bytes, which a rewrite keeps."""

    number: int
    raw: str
    entry: dict[str, Any] | None
    error: str = ""
    data: bytes = b""


def local_naive_iso(value: datetime | None = None) -> str:
    """``datetime.now().isoformat()``: what the agent writes and can read back."""
    return (value or datetime.now()).replace(tzinfo=None).isoformat()


def parse_iso(value: object) -> datetime | None:
    """The datetime an ISO string holds (with its offset, if it has one), or None when it
    is not one. Every stamp of the archive is read through here."""
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def parse_local(value: object) -> datetime | None:
    """A stamp as the naive local time the agent means by it (an offset is dropped)."""
    parsed = parse_iso(value)
    return parsed.replace(tzinfo=None) if parsed is not None else None


def validate_archive_entry(entry: Mapping[str, Any]) -> None:
    for name in ("note_id", "content", "reason", "archived_at"):
        if not isinstance(entry.get(name), str) or not entry[name]:
            raise InvalidNote(name, "is required in an archive line")
    for name in ("archived_at", "original_created_at", "restored_at"):
        value = entry.get(name)
        if value is None:
            continue
        if not isinstance(value, str) or value.endswith("Z"):
            raise InvalidNote(name, "must be a naive local ISO string")
        parsed = parse_iso(value)
        if parsed is None:
            raise InvalidNote(name, "must be an ISO date and time")
        if parsed.tzinfo is not None:
            raise InvalidNote(name, "must not carry a timezone (the agent cannot read it)")


def archive_entry_problem(entry: Mapping[str, Any]) -> str:
    """Why an archive line may not be written to ``archive.jsonl`` by an import, nor
    restored ('' when it may), in words: what :func:`validate_archive_entry` asks, what
    any stored document must be (``stored_value_problem``: no ``$`` or dotted key, finite
    numbers, no NUL, dates in range), a ``note_id`` of the notes' safe form (the pages
    link to it), a section of the five or none, an importance of 0..1, a whole
    ``access_count`` not negative, and ``metadata`` / ``source`` / ``source_history`` of
    the agent's shapes. The archive page lists a line that has one, without a Restore."""
    problem = stored_value_problem(entry, where="the line")
    if problem:
        return problem
    try:
        validate_archive_entry(entry)
    except InvalidNote as e:
        return f"its {e.field} {e.message}"
    note_id = entry["note_id"]
    if not SAFE_NOTE_ID.fullmatch(note_id):
        return (
            f"its note_id {note_id[:80]!r} is not of a safe form (letters, digits, '_' and "
            "'-', at most 128, starting with a letter or digit)"
        )
    for name in ("archived_at", "original_created_at", "restored_at"):
        parsed = parse_iso(entry.get(name))
        if parsed is not None and datetime_problem(parsed, where=f"its {name}"):
            return datetime_problem(parsed, where=f"its {name}")
    section, importance = entry.get("section"), entry.get("importance", 0.0)
    if section is not None and section not in SECTIONS:
        return f"its section {str(section)[:80]!r} is not one of {', '.join(SECTIONS)}"
    if not _is_number(importance) or not 0 <= importance <= 1:
        return "its importance is not a number between 0 and 1"
    count = entry.get("access_count", 0)
    if count is not None and (not isinstance(count, int) or isinstance(count, bool) or count < 0):
        return "its access_count is not a whole number, 0 or more"
    shapes = (("metadata", dict, False), ("source", dict, True), ("source_history", list, True))
    for name, kind, may_be_null in shapes:
        value = entry.get(name)
        if name in entry and not isinstance(value, kind) and not (may_be_null and value is None):
            return f"its {name} is not {'an object' if kind is dict else 'a list'}"
    if not all(isinstance(s, Mapping) for s in entry.get("source_history") or []):
        return "its source_history holds values that are not objects"
    return ""


@dataclass(frozen=True)
class ArchivedNote:
    """One archived note, typed. ``extra`` holds what the typed fields do not: keys we do
    not model, and known keys whose value is not what the agent writes (kept as found).
    :meth:`to_entry` writes it back untouched, so a line read and written again keeps its
    data. ``line_number`` is where the line was when it was read (not part of equality)."""

    note_id: str
    content: str
    section: str | None
    importance: float
    reason: str
    archived_at: str
    original_created_at: str | None = None
    access_count: int = 0
    metadata: dict[str, Any] = field(default_factory=dict)
    source: dict[str, Any] | None = None
    source_history: list[dict[str, Any]] = field(default_factory=list)
    restored: bool = False
    restored_at: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    line_number: int = field(default=0, compare=False)

    @classmethod
    def from_entry(cls, entry: Mapping[str, Any], line_number: int = 0) -> ArchivedNote:
        """The note in a parsed line (or an entry kept in an audit event)."""
        e = entry
        importance = e.get("importance", 0.0)
        access_count = e.get("access_count")
        metadata, source, history = e.get("metadata"), e.get("source"), e.get("source_history")
        section, created, restored_at = (
            e.get("section"),
            e.get("original_created_at"),
            e.get("restored_at"),
        )
        note = cls(
            note_id=str(e.get("note_id", "")),
            content=str(e.get("content", "")),
            section=section if isinstance(section, str) else None,
            importance=float(importance) if _is_number(importance) else 0.0,
            reason=str(e.get("reason", "")),
            archived_at=str(e.get("archived_at", "")),
            original_created_at=created if isinstance(created, str) else None,
            access_count=int(access_count) if _is_number(access_count) else 0,
            metadata=dict(metadata) if isinstance(metadata, dict) else {},
            source=dict(source) if isinstance(source, dict) and source else None,
            source_history=list(history) if isinstance(history, list) else [],
            restored=e.get("restored") is True,
            restored_at=restored_at if isinstance(restored_at, str) else None,
            line_number=line_number,
        )
        typed = note.to_entry()
        extra = {k: v for k, v in e.items() if k not in typed or not _same(typed[k], v)}
        return replace(note, extra=extra) if extra else note

    @classmethod
    def from_line(cls, line: ArchiveLine) -> ArchivedNote:
        return cls.from_entry(line.entry or {}, line.number)

    @classmethod
    def from_document(
        cls, doc: Mapping[str, Any], reason: str, now: datetime | None = None
    ) -> ArchivedNote:
        """The agent's archive line for a MongoDB document (the embedding is not kept)."""
        created = doc.get("created_at")
        importance = doc.get("importance", 0.5)
        return cls(
            note_id=str(doc["note_id"]),
            content=str(doc.get("content", "")),
            section=doc.get("section"),
            importance=float(importance) if _is_number(importance) else 0.5,
            reason=reason,
            archived_at=local_naive_iso(now),
            original_created_at=created.isoformat() if isinstance(created, datetime) else None,
            access_count=int(doc.get("access_count") or 0),
            metadata=dict(doc.get("metadata") or {}),
            source=dict(doc["source"]) if doc.get("source") else None,
            source_history=list(doc.get("source_history") or []),
        )

    def to_entry(self) -> dict[str, Any]:
        """The line as the agent writes it: ``source`` / ``source_history`` only when
        non-empty, ``restored`` / ``restored_at`` only once restored, then ``extra``."""
        entry: dict[str, Any] = {
            "note_id": self.note_id,
            "content": self.content,
            "section": self.section,
            "importance": self.importance,
            "reason": self.reason,
            "archived_at": self.archived_at,
            "original_created_at": self.original_created_at,
            "access_count": self.access_count,
            "metadata": self.metadata,
        }
        if self.source:
            entry["source"] = self.source
        if self.source_history:
            entry["source_history"] = self.source_history
        if self.restored:
            entry["restored"] = True
        if self.restored_at is not None:
            entry["restored_at"] = self.restored_at
        return {**entry, **self.extra}

    @property
    def problem(self) -> str:
        """Why this line cannot be restored ('' when it can): :func:`archive_entry_problem`
        of the line as written."""
        return archive_entry_problem(self.to_entry())

    @property
    def key(self) -> str:
        """The same for two equal notes: what lines are matched on when they are dropped."""
        return json.dumps(self.to_entry(), sort_keys=True, ensure_ascii=False)

    def archived_before(self, cutoff: datetime) -> bool:
        """True when archived before ``cutoff`` (naive local); an unreadable stamp never is."""
        archived = parse_local(self.archived_at)
        return archived is not None and archived < cutoff

    def same_line_as(self, other: ArchivedNote) -> bool:
        """True when both were read from the same archive line, restored since or not: the
        same ``note_id`` and ``archived_at`` (the agent's stamp, to the microsecond)."""
        return self.note_id == other.note_id and self.archived_at == other.archived_at


def _is_number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _same(a: Any, b: Any) -> bool:
    """Equal and written the same way in JSON (``1`` and ``1.0`` are not)."""
    return type(a) is type(b) and a == b


def new_note_id() -> str:
    return f"note_{uuid.uuid4().hex[:12]}"


def archive_line_for(
    doc: Mapping[str, Any], reason: str, now: datetime | None = None
) -> dict[str, Any]:
    """The agent's archive line for a MongoDB document, as the dict written to the file."""
    return ArchivedNote.from_document(doc, reason, now).to_entry()


def reason_kind(reason: str) -> str:
    """Group the agent's reasons: ``importance_decay_0.031`` -> ``importance_decay``."""
    if reason.startswith("importance_decay_"):
        return "importance_decay"
    if reason.startswith("Consolidated with "):
        return "consolidated"
    return reason or "unknown"
