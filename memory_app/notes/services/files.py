"""Audited writes to core.md and notes.md: promote, remove, edit."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from memory_app.notes.errors import CoreItemNotFound
from memory_app.notes.lib import InvalidNote, NoteNotFound
from memory_app.notes.lib.constants import CORE_CATEGORIES
from memory_app.notes.models import PromotionVerdict
from memory_app.notes.selectors import content_hash
from memory_app.notes.stores import core_notes, notes_store, working_notes
from qqweb.audit.errors import UndoRefused
from qqweb.audit.services import audit_begin, audited
from qqweb.lib.actors import Actor


@dataclass(frozen=True)
class CoreItem:
    """An item of core.md: its category, its text, and the note it was promoted from
    ("" for an item added by hand)."""

    category: str
    content: str
    note_id: str = ""

    def as_json(self) -> dict[str, str]:
        """The audit event's ``after`` (what undo removes)."""
        found = {"category": self.category, "content": self.content}
        return {**found, "note_id": self.note_id} if self.note_id else found


def core_promote(
    *, actor: Actor, note_id: str, category: str | None = None, batch_id: uuid.UUID | None = None
) -> CoreItem:
    """Copy a note into core.md under ``category`` (suggested from the agent's patterns
    when not given). The note stays in MongoDB."""
    note = notes_store().note(note_id)
    if note is None:
        raise NoteNotFound(note_id)
    manager = core_notes()
    if category is None:
        ok, suggested = manager.is_core_candidate(note.content)
        if not ok:
            raise InvalidNote("category", f"choose one of {', '.join(CORE_CATEGORIES)}")
        category = suggested
    if category not in CORE_CATEGORIES:
        raise InvalidNote("category", f"must be one of {', '.join(CORE_CATEGORIES)}")
    item = CoreItem(category, " ".join(note.content.split()), note_id)
    event = audit_begin(actor, "core.promote", "core", note_id, None, batch_id)

    def write() -> dict[str, str]:
        if not manager.add_core(item.content, category):
            raise InvalidNote("content", "core.md has this item already")
        return item.as_json()

    audited(event, write)
    return item


def core_item_add(
    *, actor: Actor, category: str, content: str, batch_id: uuid.UUID | None = None
) -> CoreItem:
    """Add an item to core.md by hand, newest first under ``category`` (the agent's
    format; no provenance, as the file keeps none). Refused when core.md has it already.
    Undo removes it."""
    if category not in CORE_CATEGORIES:
        raise InvalidNote("category", f"must be one of {', '.join(CORE_CATEGORIES)}")
    item = CoreItem(category, " ".join((content or "").split()))
    if not item.content:
        raise InvalidNote("content", "must not be empty")
    manager = core_notes()
    event = audit_begin(
        actor, "core.add", "core", f"{category}: {item.content}"[:300], None, batch_id
    )

    def write() -> dict[str, str]:
        if not manager.add_core(item.content, category, source="qqweb"):
            raise InvalidNote("content", "core.md has this item already")
        return item.as_json()

    audited(event, write)
    return item


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
    event = audit_begin(
        actor, "working.edit", "working", f"{section}: {content}"[:300], before, batch_id
    )

    def write() -> dict[str, str]:
        if not manager.replace_item(section, content, new_content):
            raise CoreItemNotFound(section)
        return {"section": section, "content": " ".join(new_content.split())}

    audited(event, write)


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
        raise CoreItemNotFound(section)
    before = {"section": section, "content": match}
    event = audit_begin(
        actor, f"{kind}.remove", kind, f"{section}: {match}"[:300], before, batch_id
    )
    audited(event, lambda: manager.remove_item(section, match) and {"removed": True})


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


def promotion_approve(*, actor: Actor, note_id: str, category: str | None = None) -> CoreItem:
    """Promote a candidate to core.md and remember the verdict."""
    item = core_promote(actor=actor, note_id=note_id, category=category)
    PromotionVerdict.objects.update_or_create(
        note_id=note_id,
        content_hash=content_hash(item.content),
        defaults={
            "verdict": PromotionVerdict.APPROVED,
            "category": item.category,
            "decided_by": actor.label,
        },
    )
    return item


def promotion_reject(*, actor: Actor, note_id: str) -> None:
    """Not for core: remembered, so the note is not proposed again (unless its text
    changes)."""
    note = notes_store().note(note_id)
    if note is None:
        raise NoteNotFound(note_id)
    key = {"note_id": note_id, "content_hash": content_hash(note.content)}
    event = audit_begin(actor, "promotion.reject", "note", note_id, None, None)

    def write() -> dict[str, str]:
        PromotionVerdict.objects.update_or_create(
            note_id=key["note_id"],
            content_hash=key["content_hash"],
            defaults={"verdict": PromotionVerdict.REJECTED, "decided_by": actor.label},
        )
        return key

    audited(event, write)


def _undo_promotion_reject(before: Any, after: dict[str, Any]) -> dict[str, Any]:
    PromotionVerdict.objects.filter(**after).delete()
    return after


UNDO_HANDLERS = {  # registered in MemoryAppConfig.ready()
    "core.promote": _undo_core_promote,
    "core.add": _undo_core_promote,
    "core.remove": _undo_core_remove,
    "working.remove": _undo_working_remove,
    "working.edit": _undo_working_edit,
    "promotion.reject": _undo_promotion_reject,
}
