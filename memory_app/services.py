"""Writes to the notes memory. Every mutation a person, a token or a job makes goes
through one of these functions, which writes an audit event in the same step (pending
before the store is touched, done after) with the state before and after, enough to undo
it with :func:`audit_undo`.

Functions are keyword-only and named ``<noun>_<verb>``; the HTML views, the JSON API and
the Celery tasks all call these, never the stores directly.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.utils import timezone
from pymongo.errors import PyMongoError

from memory_app.memory import InvalidNote, NoteNotFound, StoreUnavailable
from memory_app.memory.archive import archive_line_for
from memory_app.memory.constants import CORE_CATEGORIES, SECTIONS
from memory_app.memory.deduplication import MERGED_IDS_FIELD
from memory_app.memory.errors import StaleWrite, UndoRefused
from memory_app.memory.listing import NoteFilter
from memory_app.memory.mongo_store import utcnow_naive, validate_importance
from memory_app.memory.vectors import normalise
from memory_app.models import AuditEvent
from memory_app.snapshots import from_json, to_json
from memory_app.stores import archive_manager, core_notes, deduplicator, notes_store, working_notes
from qqweb.actors import Actor
from qqweb.clients import embedder

MANUAL_ARCHIVE_REASON = "manual"


# --- the audit trail ---------------------------------------------------------------------


def _audit_begin(
    actor: Actor,
    action: str,
    target_type: str,
    target_id: str,
    before: Any,
    batch_id: uuid.UUID | None,
) -> AuditEvent:
    return AuditEvent.objects.create(
        actor=actor.label,
        actor_user_id=actor.user_id,
        action=action,
        target_type=target_type,
        target_id=target_id,
        before=to_json(before),
        batch_id=batch_id or uuid.uuid4(),
    )


def _audited(event: AuditEvent, work: Callable[[], Any]) -> Any:
    """Run ``work``; record its result as ``after`` (done) or the error (failed)."""
    try:
        after = work()
    except Exception as e:
        event.status = AuditEvent.FAILED
        event.detail = str(e)[:2000]
        event.save(update_fields=["status", "detail"])
        raise
    event.after = to_json(after)
    event.status = AuditEvent.DONE
    event.save(update_fields=["after", "status"])
    return after


def _same_time(a: Any, b: Any) -> bool:
    """BSON dates keep milliseconds: compare at that precision."""
    if not isinstance(a, datetime) or not isinstance(b, datetime):
        return False
    return abs((a.replace(tzinfo=None) - b.replace(tzinfo=None)).total_seconds()) < 0.001


def _embed(text: str) -> list[float]:
    return [float(x) for x in embedder().embed([text])[0]]


# --- notes -------------------------------------------------------------------------------


def note_edit(
    *,
    actor: Actor,
    note_id: str,
    expected_updated_at: datetime,
    content: str | None = None,
    section: str | None = None,
    importance: float | None = None,
    batch_id: uuid.UUID | None = None,
) -> dict[str, Any]:
    """Change content, section or importance of a note loaded at ``expected_updated_at``.
    An edit on a stale copy raises :class:`StaleWrite` (with the current version). A new
    content is re-embedded. The update is a compare-and-set on ``updated_at``."""
    store = notes_store()
    doc = store.get_full_note(note_id)
    if doc is None:
        raise NoteNotFound(note_id)
    if not _same_time(doc.get("updated_at"), expected_updated_at):
        raise StaleWrite(note_id, doc)
    changes: dict[str, Any] = {}
    if content is not None and content.strip() != doc.get("content"):
        if not content.strip():
            raise InvalidNote("content", "must not be empty")
        changes["content"] = content.strip()
        changes["embedding"] = _embed(changes["content"])
    if section is not None and section != doc.get("section"):
        if section not in SECTIONS:
            raise InvalidNote("section", f"must be one of {', '.join(SECTIONS)}")
        changes["section"] = section
    if importance is not None and importance != doc.get("importance"):
        validate_importance(importance)
        changes["importance"] = float(importance)
    if not changes:
        return doc
    before = {k: doc.get(k) for k in (*changes, "updated_at")}
    event = _audit_begin(actor, "note.edit", "note", note_id, before, batch_id)

    def write() -> dict[str, Any]:
        now = utcnow_naive()
        result = store.collection.update_one(
            {"note_id": note_id, "updated_at": doc["updated_at"]},
            {"$set": {**changes, "updated_at": now}},
        )
        if result.matched_count != 1:
            raise StaleWrite(note_id, store.get_full_note(note_id))
        return {"note_id": note_id, **changes, "updated_at": now}

    _audited(event, _guard_store(write))
    return store.get_full_note(note_id) or {}


def note_archive(
    *,
    actor: Actor,
    note_id: str,
    reason: str = MANUAL_ARCHIVE_REASON,
    batch_id: uuid.UUID | None = None,
) -> dict[str, Any]:
    """Archive a note (the line is written and fsynced before the note is deleted)."""
    store = notes_store()
    doc = store.get_full_note(note_id)
    if doc is None:
        raise NoteNotFound(note_id)
    line = archive_line_for(doc, reason)
    event = _audit_begin(actor, "note.archive", "note", note_id, doc, batch_id)

    def write() -> dict[str, Any]:
        manager = archive_manager()
        manager.append_entries([line])
        if (
            store.collection.delete_one(
                {"note_id": note_id, "updated_at": doc["updated_at"]}
            ).deleted_count
            != 1
        ):
            manager.drop_line(line)
            raise StaleWrite(note_id, store.get_full_note(note_id))
        return line

    return dict(_audited(event, _guard_store(write)))


def note_restore(
    *,
    actor: Actor,
    note_id: str,
    new_id: str | None = None,
    boost_importance: float = 0.1,
    batch_id: uuid.UUID | None = None,
) -> dict[str, Any]:
    """Restore an archived note (re-embedded, provenance back). RestoreConflict when the
    id exists, naming a new id to restore under."""
    manager = archive_manager()
    archived = manager.find_line(note_id)
    if archived is None:
        raise NoteNotFound(note_id)
    line = next(ln.entry for ln in manager.read_lines() if ln.number == archived.line_number)
    event = _audit_begin(actor, "note.restore", "archive", note_id, line, batch_id)

    def write() -> dict[str, Any]:
        manager.restore_note(note_id, boost_importance, new_id=new_id)
        return notes_store().get_full_note(new_id or note_id) or {}

    return dict(_audited(event, _guard_store(write)))


def pair_merge(
    *,
    actor: Actor,
    note_a_id: str,
    note_b_id: str,
    primary_id: str | None = None,
    content: str | None = None,
    similarity: float | None = None,
    batch_id: uuid.UUID | None = None,
) -> dict[str, Any]:
    """Merge two notes the contract's way (or with a curator's text); crash-safe order."""
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
    plan = dedup.plan(
        a,
        b,
        similarity if similarity is not None else cosine(a, b),
        content=content,
        primary_id=primary_id,
    )
    primary, secondary = (a, b) if plan.primary_id == note_a_id else (b, a)
    before = {
        "primary": primary,
        "secondary": secondary,
        "plan": {
            "inc_access": plan.inc_access,
            "pushed_source": plan.pushed_source,
            "archive_reason": plan.archive_reason,
        },
    }
    event = _audit_begin(actor, "pair.merge", "note", plan.primary_id, before, batch_id)

    def write() -> dict[str, Any]:
        dedup.apply_merge(plan, archive_manager())
        return store.get_full_note(plan.primary_id) or {}

    return dict(_audited(event, _guard_store(write)))


def cosine(a: dict[str, Any], b: dict[str, Any]) -> float:
    va, vb = a.get("embedding") or [], b.get("embedding") or []
    if not va or len(va) != len(vb):
        return 0.0
    import numpy as np

    pair = normalise(np.asarray([va, vb], dtype=np.float32))
    return round(float(pair[0] @ pair[1]), 4)


# --- core and working notes -------------------------------------------------------------


def core_promote(
    *, actor: Actor, note_id: str, category: str | None = None, batch_id: uuid.UUID | None = None
) -> dict[str, str]:
    """Copy a note into core.md under ``category`` (suggested from the agent's patterns
    when not given). The note stays in MongoDB."""
    doc = notes_store().get_full_note(note_id)
    if doc is None:
        raise NoteNotFound(note_id)
    manager = core_notes()
    if category is None:
        ok, suggested = manager.is_core_candidate(str(doc["content"]))
        if not ok:
            raise InvalidNote("category", f"choose one of {', '.join(CORE_CATEGORIES)}")
        category = suggested
    if category not in CORE_CATEGORIES:
        raise InvalidNote("category", f"must be one of {', '.join(CORE_CATEGORIES)}")
    item = {
        "category": category,
        "content": " ".join(str(doc["content"]).split()),
        "note_id": note_id,
    }
    event = _audit_begin(actor, "core.promote", "core", note_id, None, batch_id)

    def write() -> dict[str, str]:
        if not manager.add_core(item["content"], category):
            raise InvalidNote("content", "core.md has this item already")
        return item

    return dict(_audited(event, write))


def core_item_remove(
    *, actor: Actor, category: str, content: str, batch_id: uuid.UUID | None = None
) -> None:
    _file_item_remove(actor, core_notes(), "core", category, content, batch_id)


def working_item_remove(
    *, actor: Actor, section: str, content: str, batch_id: uuid.UUID | None = None
) -> None:
    _file_item_remove(actor, working_notes(), "working", section, content, batch_id)


def working_item_edit(
    *, actor: Actor, section: str, content: str, new_content: str, batch_id: uuid.UUID | None = None
) -> None:
    manager = working_notes()
    before = {"section": section, "content": content}
    event = _audit_begin(
        actor, "working.edit", "working", f"{section}: {content}"[:300], before, batch_id
    )

    def write() -> dict[str, str]:
        if not manager.replace_item(section, content, new_content):
            raise InvalidNote("content", f"no such item under {section}")
        return {"section": section, "content": " ".join(new_content.split())}

    _audited(event, write)


def _file_item_remove(
    actor: Actor, manager: Any, kind: str, section: str, content: str, batch_id: uuid.UUID | None
) -> None:
    items = manager.items_by_section().get(section)
    if items is None:
        raise InvalidNote("section", f"must be one of {', '.join(manager.sections)}")
    match = next(
        (i for i in items if " ".join(i.split()).lower() == " ".join(content.split()).lower()), None
    )
    if match is None:
        raise InvalidNote("content", f"no such item under {section}")
    before = {"section": section, "content": match}
    event = _audit_begin(
        actor, f"{kind}.remove", kind, f"{section}: {match}"[:300], before, batch_id
    )
    _audited(event, lambda: manager.remove_item(section, match) and {"removed": True})


# --- undo ----------------------------------------------------------------------------------


def audit_undo(*, actor: Actor, event_id: int) -> AuditEvent:
    """Undo one action by replaying its ``before``. Refused, with the reason, when it was
    undone already, did not complete, or its target changed since."""
    event = AuditEvent.objects.filter(pk=event_id).first()
    if event is None:
        raise UndoRefused(f"there is no audit event {event_id}")
    if event.undone_at is not None:
        raise UndoRefused("this action was undone already")
    if event.status != AuditEvent.DONE:
        raise UndoRefused(f"this action is {event.status}, there is nothing to undo")
    handler = UNDO.get(event.action)
    if handler is None:
        raise UndoRefused(f"{event.action} cannot be undone")
    before, after = from_json(event.before), from_json(event.after)
    undo_event = _audit_begin(
        actor, f"undo.{event.action}", event.target_type, event.target_id, after, event.batch_id
    )
    undo_event.undo_of = event
    undo_event.save(update_fields=["undo_of"])
    _audited(undo_event, _guard_store(lambda: handler(before, after)))
    event.undone_at = timezone.now()
    event.save(update_fields=["undone_at"])
    return undo_event


def _undo_note_edit(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    store = notes_store()
    fields = {k: v for k, v in before.items() if k != "updated_at"}
    result = store.collection.update_one(
        {"note_id": after["note_id"], "updated_at": after["updated_at"]},
        {"$set": {**fields, "updated_at": utcnow_naive()}},
    )
    if result.matched_count != 1:
        raise UndoRefused("the note changed after this edit; undoing would overwrite that")
    return fields


def _undo_note_archive(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    store = notes_store()
    if store.get_full_note(before["note_id"]) is not None:
        raise UndoRefused(f"a note {before['note_id']!r} exists again; restore it by hand")
    store.insert_agent_documents([before])  # the exact document, embedding included
    archive_manager().drop_line(after)
    return {"note_id": before["note_id"]}


def _undo_note_restore(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    store = notes_store()
    current = store.get_full_note(after["note_id"])
    if current is not None and not _same_time(current.get("updated_at"), after.get("updated_at")):
        raise UndoRefused("the restored note changed since; archive it instead")
    archive_manager().unmark_restored(before["note_id"], before["archived_at"])
    store.collection.delete_one({"note_id": after["note_id"]})
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
        if k not in ("access_count", "source_history", MERGED_IDS_FIELD)
    }
    if current.get("last_accessed") != after.get("last_accessed"):
        restore.pop("last_accessed", None)  # the agent read the note since: keep that
    store.collection.update_one(
        {"note_id": primary["note_id"]},
        {
            "$set": {**restore, "source_history": history + since, "updated_at": utcnow_naive()},
            "$inc": {"access_count": -int(plan["inc_access"])},
            "$pull": {MERGED_IDS_FIELD: secondary["note_id"]},
        },
    )
    store.insert_agent_documents([secondary])
    manager = archive_manager()
    for line in manager.read_lines():
        entry = line.entry or {}
        if (
            entry.get("note_id") == secondary["note_id"]
            and entry.get("reason") == plan["archive_reason"]
        ):
            manager.drop_line(entry)
    return {"primary": primary["note_id"], "secondary": secondary["note_id"]}


def _undo_core_promote(before: Any, after: dict[str, Any]) -> dict[str, Any]:
    if not core_notes().remove_item(after["category"], after["content"]):
        raise UndoRefused("the item is no longer in core.md")
    return {"removed": after["content"]}


def _undo_core_remove(before: dict[str, Any], after: Any) -> dict[str, Any]:
    core_notes().add_item(before["section"], before["content"])
    return before


def _undo_working_remove(before: dict[str, Any], after: Any) -> dict[str, Any]:
    working_notes().add_item(before["section"], before["content"])
    return before


def _undo_working_edit(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    if not working_notes().replace_item(after["section"], after["content"], before["content"]):
        raise UndoRefused("the item changed since")
    return before


UNDO: dict[str, Callable[[Any, Any], Any]] = {
    "note.edit": _undo_note_edit,
    "note.archive": _undo_note_archive,
    "note.restore": _undo_note_restore,
    "pair.merge": _undo_pair_merge,
    "core.promote": _undo_core_promote,
    "core.remove": _undo_core_remove,
    "working.remove": _undo_working_remove,
    "working.edit": _undo_working_edit,
}


def _guard_store(work: Callable[[], Any]) -> Callable[[], Any]:
    def run() -> Any:
        try:
            return work()
        except PyMongoError as e:
            raise StoreUnavailable("mongodb", str(e)) from e

    return run


# --- bulk ------------------------------------------------------------------------------------

BULK_ACTIONS = ("archive", "set_importance", "move_section")
BULK_MAX = 10_000


@dataclass
class BulkResult:
    batch_id: uuid.UUID
    action: str
    done: list[str]
    failed: list[tuple[str, str]]


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
        ids.extend(d["note_id"] for d in page.items)
        cursor = page.next_cursor
        if cursor is None:
            break
    return ids


def batch_undo(*, actor: Actor, batch_id: uuid.UUID) -> tuple[int, list[str]]:
    """Undo every action of a batch, newest first. Returns (undone, reasons refused)."""
    undone, refused = 0, []
    for event in AuditEvent.objects.filter(
        batch_id=batch_id, status=AuditEvent.DONE, undone_at__isnull=True, undo_of__isnull=True
    ).order_by("-id"):
        try:
            audit_undo(actor=actor, event_id=event.pk)
            undone += 1
        except UndoRefused as e:
            refused.append(f"{event.target_id}: {e.reason}")
    return undone, refused
