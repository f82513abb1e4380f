"""What the reaper asks about an action whose process died before it recorded the
outcome (:func:`qqweb.audit.services.audit_close_pending`): is the change whole in the
store? Each check takes the event's ``before`` and returns the ``after`` the action would
have recorded (the event then ends done, and can be undone), or None when the change is
not there or only a part of it is (the event ends failed; running the action again
finishes it)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from memory_app.notes.lib.archive import ArchivedNote
from memory_app.notes.lib.archive.restore import is_restore_of
from memory_app.notes.lib.mongo.writes import merged_ids
from memory_app.notes.stores import archive_manager, notes_store


def _note_archive_settled(before: dict[str, Any]) -> dict[str, Any] | None:
    """Archived: the note left the collection and its line (same text) is in the file."""
    note_id = str(before["note_id"])
    if notes_store().note(note_id) is not None:
        return None
    line = archive_manager().find_line(note_id)
    if line is None or line.content != before.get("content"):
        return None
    return line.to_entry()


def _note_restore_settled(before: dict[str, Any]) -> dict[str, Any] | None:
    """Restored: the note is back under its own id and that very line is marked."""
    archived = ArchivedNote.from_entry(before)
    line = archive_manager().find_line(archived.note_id, include_restored=True)
    if line is None or not line.restored or not line.same_line_as(archived):
        return None
    note = notes_store().note(archived.note_id)
    if note is None or not is_restore_of(note, archived):
        return None
    return note.to_document()


def _archive_purge_settled(before: dict[str, Any]) -> dict[str, Any] | None:
    """Purged: none of the planned lines is left (the file is rewritten in one step)."""
    planned = [ArchivedNote.from_entry(entry) for entry in before["lines"]]
    present = Counter(note.key for note in archive_manager().read().notes)
    if any(present[note.key] for note in planned):
        return None
    return {"dropped": len(planned), "kept": []}


def _pair_merge_settled(before: dict[str, Any]) -> dict[str, Any] | None:
    """Merged: the primary lists the secondary, which left the collection for its line."""
    primary_id, secondary_id = before["primary"]["note_id"], before["secondary"]["note_id"]
    store = notes_store()
    primary = store.note(primary_id)
    if primary is None or secondary_id not in merged_ids(primary):
        return None
    if store.note(secondary_id) is not None:
        return None
    line = archive_manager().find_line(secondary_id)
    if line is None or line.reason != before["plan"]["archive_reason"]:
        return None
    return primary.to_document()


SETTLE_CHECKS = {  # registered in MemoryAppConfig.ready()
    "note.archive": _note_archive_settled,
    "note.restore": _note_restore_settled,
    "archive.purge": _archive_purge_settled,
    "pair.merge": _pair_merge_settled,
    "pair.supersede": _pair_merge_settled,
}
