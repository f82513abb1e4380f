"""Audited writes to notes in MongoDB: edit, archive, restore, merge, bulk."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from memory_app.memory import InvalidNote, NoteNotFound
from memory_app.memory.archive import ArchivedNote, ArchiveManager
from memory_app.memory.constants import SECTIONS
from memory_app.memory.domain import Note
from memory_app.memory.embeddings import embed_keeping_dimension
from memory_app.memory.errors import StaleWrite
from memory_app.memory.listing import NoteFilter
from memory_app.memory.mongo import MERGED_IDS_FIELD
from memory_app.memory.mongo_store import validate_importance
from memory_app.memory.vectors import normalise
from memory_app.services.common import same_time
from memory_app.stores import archive_manager, deduplicator, notes_store
from qqweb.actors import Actor
from qqweb.audit.errors import UndoRefused
from qqweb.audit.services import BulkResult, audit_begin, audited
from qqweb.clients import embedder

MANUAL_ARCHIVE_REASON = "manual"


def note_edit(
    *,
    actor: Actor,
    note_id: str,
    expected_updated_at: datetime,
    content: str | None = None,
    section: str | None = None,
    importance: float | None = None,
    batch_id: uuid.UUID | None = None,
) -> Note:
    """Change content, section or importance of a note loaded at ``expected_updated_at``.
    An edit on a stale copy raises :class:`StaleWrite` (with the current version). A new
    content is re-embedded, only in the dimension of the note's vector (or the collection's
    for a note with none): EmbeddingDimensionConflict otherwise. The update is a
    compare-and-set on ``updated_at``."""
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
            store.reembed_dimension(note.to_document()),
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


def note_archive(
    *,
    actor: Actor,
    note_id: str,
    reason: str = MANUAL_ARCHIVE_REASON,
    batch_id: uuid.UUID | None = None,
) -> ArchivedNote:
    """Archive a note (the line is written and fsynced before the note is deleted)."""
    store = notes_store()
    note = store.note(note_id)
    if note is None:
        raise NoteNotFound(note_id)
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
    batch_id: uuid.UUID | None = None,
) -> Note:
    """Restore an archived note (re-embedded, provenance back). RestoreConflict when the
    id exists, naming a new id to restore under; EmbeddingDimensionConflict when the
    configured model's vectors would not have the collection's dimension."""
    manager = archive_manager()
    archived = manager.find_line(note_id)
    if archived is None:
        raise NoteNotFound(note_id)
    manager.check_embedder(new_id or note_id)
    event = audit_begin(actor, "note.restore", "archive", note_id, archived.to_entry(), batch_id)

    def write() -> dict[str, Any]:
        # the very line in the audit event, even if a purge or an undo moved it since
        doc = manager.restore(archived, boost_importance, new_id=new_id)
        return notes_store().get_full_note(doc["note_id"]) or {}

    return _current(str(audited(event, write)["note_id"]))


def pair_merge(
    *,
    actor: Actor,
    note_a_id: str,
    note_b_id: str,
    primary_id: str | None = None,
    content: str | None = None,
    similarity: float | None = None,
    use_llm: bool = False,
    batch_id: uuid.UUID | None = None,
) -> Note:
    """Merge two notes the contract's way (or with a curator's text); crash-safe order.
    ``use_llm`` (without a curator's text) asks the configured LLM (QQ_LLM_URL) for the
    merged text and, when it does not answer, keeps the simple merge, as the agent does."""
    store = notes_store()
    a, b = store.get_full_note(note_a_id), store.get_full_note(note_b_id)
    for note_id, doc in ((note_a_id, a), (note_b_id, b)):
        if doc is None:
            raise NoteNotFound(note_id)
    assert a is not None and b is not None
    if note_a_id == note_b_id:
        raise InvalidNote("note_b_id", "a note cannot be merged with itself")
    if primary_id is not None and primary_id not in (note_a_id, note_b_id):
        raise InvalidNote("primary_id", "must be one of the two notes")
    dedup = deduplicator()
    if content is None and use_llm:
        content = dedup.llm_merge_text(*dedup.ordered(a, b, primary_id))
    plan = dedup.plan(
        a,
        b,
        similarity if similarity is not None else cosine(a, b),
        content=content,
        primary_id=primary_id,
    )
    primary, secondary = (a, b) if plan.primary_id == note_a_id else (b, a)
    dedup.check_reembed(plan, primary)  # a new text must keep the primary's dimension
    before = {
        "primary": primary,
        "secondary": secondary,
        "plan": {
            "inc_access": plan.inc_access,
            "pushed_source": plan.pushed_source,
            "archive_reason": plan.archive_reason,
        },
    }
    event = audit_begin(actor, "pair.merge", "note", plan.primary_id, before, batch_id)

    def write() -> dict[str, Any]:
        dedup.apply_merge(plan, archive_manager())
        return store.get_full_note(plan.primary_id) or {}

    audited(event, write)
    return _current(plan.primary_id)


def cosine(a: dict[str, Any], b: dict[str, Any]) -> float:
    va, vb = a.get("embedding") or [], b.get("embedding") or []
    if not va or len(va) != len(vb):
        return 0.0
    pair = normalise(np.asarray([va, vb], dtype=np.float32))
    return round(float(pair[0] @ pair[1]), 4)


BULK_ACTIONS = ("archive", "set_importance", "move_section")


BULK_MAX = 10_000


def notes_bulk(
    *,
    actor: Actor,
    action: str,
    note_ids: list[str] | None = None,
    flt: NoteFilter | None = None,
    importance: float | None = None,
    section: str | None = None,
) -> BulkResult:
    """Archive, set the importance of, or move to a section: the listed notes, or every
    note matching ``flt`` (at most 10,000 a request). One audit event per note, all under
    one batch id, so the whole batch can be undone from the audit log."""
    if action not in BULK_ACTIONS:
        raise InvalidNote("action", f"must be one of {', '.join(BULK_ACTIONS)}")
    if action == "set_importance":
        validate_importance(importance)
    if action == "move_section" and section not in SECTIONS:
        raise InvalidNote("section", f"must be one of {', '.join(SECTIONS)}")
    if (note_ids is None) == (flt is None):
        raise InvalidNote("note_ids", "give either note_ids or a filter")
    ids = (
        list(dict.fromkeys(note_ids))
        if note_ids is not None
        else bulk_matching_ids(flt or NoteFilter())
    )
    if len(ids) > BULK_MAX:
        raise InvalidNote("note_ids", f"at most {BULK_MAX} notes at a time")
    result = BulkResult(uuid.uuid4(), action, [], [])
    store = notes_store()
    for note_id in ids:
        try:
            if action == "archive":
                note_archive(actor=actor, note_id=note_id, batch_id=result.batch_id)
            else:
                doc = store.get_full_note(note_id)
                if doc is None:
                    raise NoteNotFound(note_id)
                note_edit(
                    actor=actor,
                    note_id=note_id,
                    expected_updated_at=doc["updated_at"],
                    importance=importance if action == "set_importance" else None,
                    section=section if action == "move_section" else None,
                    batch_id=result.batch_id,
                )
            result.done.append(note_id)
        except (NoteNotFound, StaleWrite, InvalidNote) as e:
            result.failed.append((note_id, str(e)))
    return result


def bulk_matching_ids(flt: NoteFilter) -> list[str]:
    ids: list[str] = []
    cursor = None
    while len(ids) <= BULK_MAX:
        page = notes_store().list_notes(flt, sort="updated", cursor=cursor, limit=200)
        ids.extend(note.note_id for note in page.items)
        cursor = page.next_cursor
        if cursor is None:
            break
    return ids


@dataclass(frozen=True)
class BulkPreview:
    """What a bulk action would touch: how many notes, and the first few to show."""

    count: int
    shown: list[Note]

    @property
    def more(self) -> int:
        return self.count - len(self.shown)


def notes_bulk_preview(
    *, note_ids: list[str] | None, flt: NoteFilter | None, show: int = 10
) -> BulkPreview:
    """The notes ``notes_bulk`` would act on (the listed ones, or every note matching
    ``flt``), for its confirmation: the count and the first ``show`` notes."""
    ids = (
        list(dict.fromkeys(note_ids))
        if note_ids is not None
        else bulk_matching_ids(flt or NoteFilter())
    )
    docs = notes_store().notes_by_ids(ids[:show])
    shown = [Note.from_document(docs[i]) for i in ids[:show] if i in docs]
    return BulkPreview(count=len(ids), shown=shown)


def _undo_note_edit(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    store = notes_store()
    fields = {k: v for k, v in before.items() if k != "updated_at"}
    if store.update_if_unchanged(after["note_id"], after["updated_at"], fields) is None:
        raise UndoRefused("the note changed after this edit; undoing would overwrite that")
    return fields


def _undo_note_archive(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    store = notes_store()
    if store.get_full_note(before["note_id"]) is not None:
        raise UndoRefused(f"a note {before['note_id']!r} exists again; restore it by hand")
    store.insert_agent_documents([before])  # the exact document, embedding included
    archive_manager().drop([ArchivedNote.from_entry(after)])
    return {"note_id": before["note_id"]}


def _undo_note_restore(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    store = notes_store()
    current = store.get_full_note(after["note_id"])
    if current is not None and not same_time(current.get("updated_at"), after.get("updated_at")):
        raise UndoRefused("the restored note changed since; archive it instead")
    archive_manager().unmark_restored(before["note_id"], before["archived_at"])
    store.delete_if_unchanged(after["note_id"])
    return {"note_id": after["note_id"]}


def _undo_pair_merge(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    store = notes_store()
    primary, secondary, plan = before["primary"], before["secondary"], before["plan"]
    current = store.get_full_note(primary["note_id"])
    if current is None:
        raise UndoRefused("the merged note is gone")
    if store.get_full_note(secondary["note_id"]) is not None:
        raise UndoRefused(f"a note {secondary['note_id']!r} exists again")
    history = list(primary.get("source_history") or [])
    since = list(current.get("source_history") or [])[len(history) :]
    if plan["pushed_source"] and since[:1] == [plan["pushed_source"]]:
        since = since[1:]
    restore = {
        k: v
        for k, v in primary.items()
        if k not in ("access_count", "source_history", "updated_at", MERGED_IDS_FIELD)
    }
    if current.get("last_accessed") != after.get("last_accessed"):
        restore.pop("last_accessed", None)  # the agent read the note since: keep that
    had_history = "source_history" in primary or bool(since)
    store.unmerge_primary(
        primary["note_id"],
        secondary["note_id"],
        restore,
        inc_access=int(plan["inc_access"]),
        source_history=history + since if had_history else None,
    )
    store.insert_agent_documents([secondary])
    manager = archive_manager()
    merged_line = manager.find_line(secondary["note_id"])
    if merged_line is not None and merged_line.reason == plan["archive_reason"]:
        manager.drop([merged_line])
    return {"primary": primary["note_id"], "secondary": secondary["note_id"]}


UNDO_HANDLERS = {  # registered in MemoryAppConfig.ready()
    "note.edit": _undo_note_edit,
    "note.archive": _undo_note_archive,
    "note.restore": _undo_note_restore,
    "pair.merge": _undo_pair_merge,
}
