"""Bulk changes to notes: archive, set the importance of, or move to a section many notes
at once, listed or matching a filter, as one batch the audit log undoes whole."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from memory_app.notes.lib import InvalidNote, NoteNotFound
from memory_app.notes.lib.constants import SECTIONS
from memory_app.notes.lib.documents import utcnow_naive
from memory_app.notes.lib.domain import Note
from memory_app.notes.lib.errors import StaleWrite
from memory_app.notes.lib.listing import NoteFilter
from memory_app.notes.lib.mongo_store import validate_importance
from memory_app.notes.lib.replica import lists as read_list
from memory_app.notes.selectors.plan_effects import ARCHIVED, notes_removal_effect
from memory_app.notes.services.notes import note_archive, note_edit
from memory_app.notes.stores import notes_store
from qqweb.audit.services import BulkResult
from qqweb.lib.actors import Actor
from qqweb.lib.errors import InvalidInput
from qqweb.recall.effects import PlanEffect

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
        raise InvalidInput("action", f"must be one of {', '.join(BULK_ACTIONS)}")
    if action == "set_importance":
        validate_importance(importance)
    if action == "move_section" and section not in SECTIONS:
        raise InvalidNote("section", f"must be one of {', '.join(SECTIONS)}")
    if (note_ids is None) == (flt is None):
        raise InvalidInput("note_ids", "give either note_ids or a filter")
    ids = (
        list(dict.fromkeys(note_ids))
        if note_ids is not None
        else bulk_matching_ids(flt or NoteFilter())
    )
    if len(ids) > BULK_MAX:
        raise InvalidInput("note_ids", f"at most {BULK_MAX} notes at a time")
    result = BulkResult(uuid.uuid4(), action, [], [])
    store = notes_store()
    for note_id in ids:
        try:
            if action == "archive":
                note_archive(actor=actor, note_id=note_id, batch_id=result.batch_id)
            else:
                note = store.note(note_id)
                if note is None:
                    raise NoteNotFound(note_id)
                note_edit(
                    actor=actor,
                    note_id=note_id,
                    expected_updated_at=note.updated_at,
                    importance=importance if action == "set_importance" else None,
                    section=section if action == "move_section" else None,
                    batch_id=result.batch_id,
                )
            result.done.append(note_id)
        except (NoteNotFound, StaleWrite, InvalidNote) as e:
            result.failed.append((note_id, str(e)))
    return result


def bulk_matching_ids(flt: NoteFilter) -> list[str]:
    """The notes the list shows for ``flt`` (the same read-model list as the page, so a
    bulk action touches exactly what the curator saw listed), newest first."""
    ids: list[str] = []
    cursor = None
    store = notes_store()
    while len(ids) <= BULK_MAX:
        page = read_list.list_page(
            store,
            flt,
            sort="updated",
            direction="desc",
            cursor=cursor,
            limit=200,
            now=utcnow_naive(),
        )
        ids.extend(note.note_id for note in page.items)
        cursor = page.next_cursor
        if cursor is None:
            break
    return ids


@dataclass(frozen=True)
class BulkPreview:
    """What a bulk action would touch: how many notes, the first few to show (the pinned
    ones first), and for an archive what it would do to the pinned recalls."""

    count: int
    shown: list[Note]
    pins: PlanEffect | None = None

    @property
    def more(self) -> int:
        return self.count - len(self.shown)


def notes_bulk_preview(
    *, note_ids: list[str] | None, flt: NoteFilter | None, action: str = "", show: int = 10
) -> BulkPreview:
    """The notes ``notes_bulk`` would act on (the listed ones, or every note matching
    ``flt``), for its confirmation: the count and the first ``show`` notes; an archive's
    effect on the pinned recalls (computed without a write), its pinned notes shown first."""
    ids = (
        list(dict.fromkeys(note_ids))
        if note_ids is not None
        else bulk_matching_ids(flt or NoteFilter())
    )
    pins = notes_removal_effect(ids, gone=ARCHIVED) if action == "archive" else None
    if pins is not None and pins.highlight:
        ids = sorted(ids, key=lambda i: i not in pins.highlight)  # stable: pinned first
    found = notes_store().notes_by_ids(ids[:show])
    shown = [found[i] for i in ids[:show] if i in found]
    return BulkPreview(count=len(ids), shown=shown, pins=pins)


def notes_bulk_effects(
    *, action: str, note_ids: list[str] | None, flt: NoteFilter | None
) -> list[PlanEffect]:
    """What ``notes_bulk`` would do to the pinned recalls (its API asks first): an
    archive's effect, computed without a write; nothing for the other actions, which
    keep every note, or for a request ``notes_bulk`` refuses anyway."""
    if action != "archive" or (note_ids is None) == (flt is None):
        return []
    ids = (
        list(dict.fromkeys(note_ids))
        if note_ids is not None
        else bulk_matching_ids(flt or NoteFilter())
    )
    if len(ids) > BULK_MAX:
        return []
    return [notes_removal_effect(ids, gone=ARCHIVED, subject="This bulk archive")]
