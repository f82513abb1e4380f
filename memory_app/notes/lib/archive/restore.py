"""What a restore puts back into MongoDB, and why a restore can be refused."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memory_app.notes.lib.archive.entries import ArchivedNote, local_naive_iso, parse_local
from memory_app.notes.lib.domain import Note
from memory_app.notes.lib.errors import MemoryLibraryError, NoteNotFound
from memory_app.notes.lib.grace import with_grace
from qqweb.lib.errors import Conflict, InvalidInput


class RestoreConflict(MemoryLibraryError, Conflict):
    """The archived note's id exists in MongoDB; restoring would overwrite it (409)."""

    def __init__(self, note_id: str, suggested_id: str) -> None:
        super().__init__(
            f"note {note_id!r} exists in MongoDB already; restore it under a new id "
            f"(for example {suggested_id!r}) or leave it archived"
        )
        self.note_id = note_id
        self.suggested_id = suggested_id

    def details(self) -> dict[str, object]:
        return {"note_id": self.note_id, "suggested_id": self.suggested_id}


class UnrestorableLine(MemoryLibraryError, InvalidInput):
    """The archive line holds what no note may (``ArchivedNote.problem``: a path-like id,
    a number that is not finite, a date out of range ...): it stays in the archive, listed
    with the reason, and is not restored (400)."""

    def __init__(self, note_id: str, problem: str) -> None:
        InvalidInput.__init__(
            self, "note_id", f"the archive line of {note_id[:80]!r} cannot be restored: {problem}"
        )
        self.note_id = note_id


def restorable(archived: ArchivedNote) -> ArchivedNote:
    """The line, when it can be restored; :class:`UnrestorableLine` when it cannot."""
    problem = archived.problem
    if problem:
        raise UnrestorableLine(archived.note_id, problem)
    return archived


class ArchiveLineGone(NoteNotFound):
    """The archive line being restored left ``archive.jsonl`` (a purge, an undo, the
    agent) between reading it and marking it restored. A ``NoteNotFound``: the archived
    note is not there any more."""

    def __init__(self, note_id: str, archived_at: str, *, taken_back: bool) -> None:
        MemoryLibraryError.__init__(
            self,
            f"the archive line of note {note_id!r} (archived at {archived_at}) was removed "
            "from archive.jsonl while it was being restored, by a purge or an undo"
            + ("; the restore was taken back" if taken_back else ""),
        )
        self.note_id = note_id
        self.archived_at = archived_at


def restored_document(
    archived: ArchivedNote,
    target: str,
    boost: float,
    embedding: list[float],
    now: datetime,
    keep_until: datetime | None = None,
) -> dict[str, Any]:
    """The note back in the agent's format, under ``target``, with its ``source`` and
    ``source_history`` (the agent's own restore drops them) and the importance boosted;
    kept from archival until ``keep_until`` when given (:mod:`..grace`)."""
    metadata = {
        **archived.metadata,
        "restored_from_archive": True,
        "restored_at": local_naive_iso(),
    }
    if target != archived.note_id:
        metadata["restored_from_note_id"] = archived.note_id
    doc: dict[str, Any] = {
        "note_id": target,
        "content": archived.content,
        "embedding": embedding,
        "section": archived.section,
        "metadata": metadata,
        "importance": round(min(1.0, archived.importance + boost), 6),
        "decay_rate": 0.01,
        "access_count": archived.access_count,
        "created_at": parse_local(archived.original_created_at) or now,
        "updated_at": now,
        "last_accessed": None,
    }
    if archived.source:
        doc["source"] = archived.source
    if archived.source_history:
        doc["source_history"] = archived.source_history
    return with_grace(doc, keep_until)


def is_restore_of(note: Note, archived: ArchivedNote) -> bool:
    """True when ``note`` is this archived note, restored by an earlier (interrupted) try."""
    restored = bool(note.metadata.get("restored_from_archive"))
    return restored and "content" not in note.absent and note.content == archived.content
