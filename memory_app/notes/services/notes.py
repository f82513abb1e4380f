"""Audited writes to notes in MongoDB: edit, archive, restore, bulk (merges: merging.py)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from memory_app.notes.lib import InvalidNote, NoteNotFound
from memory_app.notes.lib.archive import ArchivedNote, ArchiveManager, new_note_id
from memory_app.notes.lib.archive.restore import restorable
from memory_app.notes.lib.constants import SECTIONS
from memory_app.notes.lib.documents import utcnow_naive
from memory_app.notes.lib.domain import Note
from memory_app.notes.lib.edits import changed_fields
from memory_app.notes.lib.errors import StaleWrite
from memory_app.notes.lib.grace import KEEP_UNTIL_FIELD, with_grace
from memory_app.notes.lib.importance import score_content
from memory_app.notes.lib.mongo_store import validate_importance
from memory_app.notes.selectors.archive import grace_until
from memory_app.notes.services.common import same_time

# merges moved to merging.py; these names stay importable from here
from memory_app.notes.services.merging import cosine as cosine
from memory_app.notes.services.merging import pair_merge as pair_merge
from memory_app.notes.stores import archive_manager, notes_store
from qqweb.audit.errors import UndoRefused
from qqweb.audit.services import audit_begin, audited
from qqweb.lib.actors import Actor
from qqweb.lib.clients import embedder
from qqweb.lib.embeddings import embed_keeping_dimension

MANUAL_ARCHIVE_REASON = "manual"


def note_edit(
    *,
    actor: Actor,
    note_id: str,
    expected_updated_at: datetime | None,
    content: str | None = None,
    section: str | None = None,
    importance: float | None = None,
    batch_id: uuid.UUID | None = None,
    base: Mapping[str, Any] | None = None,
) -> Note:
    """Change content, section or importance of a note loaded at ``expected_updated_at``.
    An edit on a stale copy raises :class:`StaleWrite` (with the current version). A new
    content is re-embedded, only in the dimension of the note's vector (or the collection's
    for a note with none): EmbeddingDimensionConflict otherwise. The update is a
    compare-and-set on ``updated_at`` (a note stored without one is never matched: any
    edit of it is stale).

    ``base``: the values the form was loaded with. A field submitted as it was loaded is
    not the curator's change and is not written: "Save my version" after a stale edit
    (``expected_updated_at`` then the version the curator was shown) writes only what the
    curator changed over the current note, never the other fields' older values."""
    if base is not None:
        mine = {"content": content, "section": section, "importance": importance}
        kept = changed_fields(base, {k: v for k, v in mine.items() if v is not None})
        content = content if "content" in kept else None
        section = section if "section" in kept else None
        importance = importance if "importance" in kept else None
    store = notes_store()
    note = store.note(note_id)
    if note is None:
        raise NoteNotFound(note_id)
    if not same_time(note.updated_at, expected_updated_at):
        raise StaleWrite(note_id, note.to_document())
    changes: dict[str, Any] = {}
    if content is not None and content.strip() != note.content:
        if not content.strip():
            raise InvalidNote("content", "must not be empty")
        changes["content"] = content.strip()
        changes["embedding"] = embed_keeping_dimension(
            embedder(),
            changes["content"],
            store.reembed_dimension(note),
            what=f"note {note_id!r}",
        )
    if section is not None and section != note.section:
        if section not in SECTIONS:
            raise InvalidNote("section", f"must be one of {', '.join(SECTIONS)}")
        changes["section"] = section
    if importance is not None and importance != note.importance:
        validate_importance(importance)
        changes["importance"] = float(importance)
    if not changes:
        return note
    stored = note.to_document()
    before = {k: stored.get(k) for k in (*changes, "updated_at")}
    event = audit_begin(actor, "note.edit", "note", note_id, before, batch_id)

    def write() -> dict[str, Any]:
        now = store.update_if_unchanged(note_id, note.updated_at, changes)
        if now is None:
            raise StaleWrite(note_id, store.get_full_note(note_id))
        return {"note_id": note_id, **changes, "updated_at": now}

    audited(event, write)
    return _current(note_id)


def _current(note_id: str) -> Note:
    """The note as it is now, after a write of ours (gone meanwhile: NoteNotFound)."""
    note = notes_store().note(note_id)
    if note is None:
        raise NoteNotFound(note_id)
    return note


def note_create(
    *,
    actor: Actor,
    content: str,
    section: str | None = None,
    importance: float | None = None,
    batch_id: uuid.UUID | None = None,
) -> Note:
    """Add a note by hand, in the agent's document shape: a new ``note_`` id, the text
    embedded with the configured model (in the collection's dimension, else
    EmbeddingDimensionConflict before anything is written), ``importance`` given or the
    agent's own score of the text, ``decay_rate`` 0.01, no reads yet, and a provenance
    ``source`` saying who added it (``source_type: unknown``, ``source_id: unknown:<ts>``,
    the shape the agent writes when it cannot say more). Undo deletes it while it is
    unchanged."""
    text = (content or "").strip()
    if not text:
        raise InvalidNote("content", "must not be empty")
    if section is not None and section not in SECTIONS:
        raise InvalidNote("section", f"must be one of {', '.join(SECTIONS)}")
    if importance is not None:
        validate_importance(importance)
    store = notes_store()
    note_id = new_note_id()
    embedding = embed_keeping_dimension(
        embedder(), text, store.dominant_dimension(), what=f"the new note {note_id!r}"
    )
    now = utcnow_naive()
    stamp = datetime.now(UTC).isoformat()
    doc = {
        "note_id": note_id,
        "content": text,
        "embedding": [float(x) for x in embedding],
        "section": section,
        "metadata": {},
        "importance": float(importance if importance is not None else score_content(text, section)),
        "decay_rate": 0.01,
        "access_count": 0,
        "created_at": now,
        "updated_at": now,
        "last_accessed": None,
        "source": {
            "source_type": "unknown",
            "source_id": f"unknown:{stamp}",
            "timestamp": stamp,
            "evidence": f"added by hand in qqweb by {actor.label}",
        },
    }
    event = audit_begin(actor, "note.create", "note", note_id, None, batch_id)

    def write() -> dict[str, Any]:
        if not store.insert_agent_documents([doc]):
            raise InvalidNote("note_id", f"{note_id!r} exists already; try again")
        return store.get_full_note(note_id) or doc

    audited(event, write)
    return _current(note_id)


def note_keep(
    *,
    actor: Actor,
    note_id: str,
    expected_updated_at: datetime,
    keep_days: int,
    batch_id: uuid.UUID | None = None,
) -> Note:
    """Keep a note from the archival pass for ``keep_days`` from now (0: end its grace
    period, so the next pass may archive it). A compare-and-set on ``updated_at`` like an
    edit (StaleWrite on a stale copy); audited as ``note.keep``, undone by putting the
    previous date back."""
    until = grace_until(keep_days)
    store = notes_store()
    note = store.note(note_id)
    if note is None:
        raise NoteNotFound(note_id)
    if not same_time(note.updated_at, expected_updated_at):
        raise StaleWrite(note_id, note.to_document())
    before = {KEEP_UNTIL_FIELD: note.extra.get(KEEP_UNTIL_FIELD), "updated_at": note.updated_at}
    event = audit_begin(actor, "note.keep", "note", note_id, before, batch_id)

    def write() -> dict[str, Any]:
        now = store.update_if_unchanged(note_id, note.updated_at, {KEEP_UNTIL_FIELD: until})
        if now is None:
            raise StaleWrite(note_id, store.get_full_note(note_id))
        return {"note_id": note_id, KEEP_UNTIL_FIELD: until, "updated_at": now}

    audited(event, write)
    return _current(note_id)


def note_archive(
    *,
    actor: Actor,
    note_id: str,
    reason: str = MANUAL_ARCHIVE_REASON,
    batch_id: uuid.UUID | None = None,
    expected_updated_at: datetime | None = None,
) -> ArchivedNote:
    """Archive a note (the line is written and fsynced before the note is deleted). With
    ``expected_updated_at`` (a plan's), a note changed since is refused (StaleWrite)."""
    store = notes_store()
    note = store.note(note_id)
    if note is None:
        raise NoteNotFound(note_id)
    if expected_updated_at is not None and not same_time(note.updated_at, expected_updated_at):
        raise StaleWrite(note_id, note.to_document())
    doc = note.to_document()
    line = ArchivedNote.from_document(doc, reason)
    event = audit_begin(actor, "note.archive", "note", note_id, doc, batch_id)

    def write() -> dict[str, Any]:
        manager = archive_manager()
        entry = _line_of_an_interrupted_try(manager, note, reason)
        if entry is None:
            manager.append([line])
            entry = line
        if not store.delete_if_unchanged(note_id, note.updated_at):
            if entry is line:
                manager.drop([line])
            raise StaleWrite(note_id, store.get_full_note(note_id))
        return entry.to_entry()

    return ArchivedNote.from_entry(audited(event, write))


def _line_of_an_interrupted_try(
    manager: ArchiveManager, note: Note, reason: str
) -> ArchivedNote | None:
    """The archive line an earlier try wrote for this very note before it died (same id,
    reason and text, not restored), so a retry does not write a second one."""
    found = manager.find_line(note.note_id)
    if found is None or found.reason != reason or found.content != note.content:
        return None
    return found


def note_restore(
    *,
    actor: Actor,
    note_id: str,
    new_id: str | None = None,
    boost_importance: float = 0.1,
    keep_days: int | None = None,
    batch_id: uuid.UUID | None = None,
) -> Note:
    """Restore an archived note (re-embedded, provenance back), kept from the archival
    pass for ``keep_days`` (None: QQ_RESTORE_GRACE_DAYS; 0: the next pass may archive it
    again). RestoreConflict when the id exists, naming a new id to restore under;
    EmbeddingDimensionConflict when the configured model's vectors would not have the
    collection's dimension."""
    until = grace_until(keep_days)
    manager = archive_manager()
    archived = manager.find_line(note_id)
    if archived is None:
        raise NoteNotFound(note_id)
    restorable(archived)  # UnrestorableLine (400): a line no note may hold
    manager.check_embedder(new_id or note_id)
    event = audit_begin(actor, "note.restore", "archive", note_id, archived.to_entry(), batch_id)

    def write() -> dict[str, Any]:
        # the very line in the audit event, even if a purge or an undo moved it since
        note = manager.restore(archived, boost_importance, new_id=new_id, keep_until=until)
        return notes_store().get_full_note(note.note_id) or {}

    return _current(str(audited(event, write)["note_id"]))


def _undo_note_edit(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    store = notes_store()
    fields = {k: v for k, v in before.items() if k != "updated_at"}
    if store.update_if_unchanged(after["note_id"], after["updated_at"], fields) is None:
        raise UndoRefused("the note changed after this edit; undoing would overwrite that")
    return fields


def _undo_note_create(before: Any, after: dict[str, Any]) -> dict[str, Any]:
    if not notes_store().delete_if_unchanged(after["note_id"], after["updated_at"]):
        raise UndoRefused("the note changed or is gone since it was added; archive it instead")
    return {"note_id": after["note_id"]}


def _undo_note_archive(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    store = notes_store()
    if store.note(before["note_id"]) is not None:
        raise UndoRefused(f"a note {before['note_id']!r} exists again; restore it by hand")
    # the exact document, embedding included, kept from the next archival pass
    store.insert_agent_documents([with_grace(before, grace_until())])
    archive_manager().drop([ArchivedNote.from_entry(after)])
    return {"note_id": before["note_id"]}


def _undo_note_restore(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    store = notes_store()
    current = store.note(after["note_id"])
    if current is not None and not same_time(current.updated_at, after.get("updated_at")):
        raise UndoRefused("the restored note changed since; archive it instead")
    archive_manager().unmark_restored(before["note_id"], before["archived_at"])
    store.delete_if_unchanged(after["note_id"])
    return {"note_id": after["note_id"]}


UNDO_HANDLERS = {  # registered in MemoryAppConfig.ready()
    "note.edit": _undo_note_edit,
    "note.create": _undo_note_create,
    "note.keep": _undo_note_edit,
    "note.archive": _undo_note_archive,
    "note.restore": _undo_note_restore,
}
