"""Audited maintenance of archive.jsonl: purge, bulk restore."""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timedelta
from typing import Any

from memory_app.memory import InvalidNote, NoteNotFound, RestoreConflict
from memory_app.services._audit import (
    UNDO,
    BulkResult,
    audit_begin,
    audited,
)
from memory_app.services.notes import note_restore
from memory_app.stores import archive_manager
from qqweb.actors import Actor


def archive_purge(*, actor: Actor, days: int, dry_run: bool = False) -> dict[str, Any]:
    """Drop archive lines older than ``days`` (restored or not); unparseable lines stay.
    A dry run only counts. The dropped lines are kept in the audit event, so undo puts
    them back."""
    if not isinstance(days, int) or days < 0:
        raise InvalidNote("days", "must be a whole number of days, 0 or more")
    manager = archive_manager()
    cutoff = datetime.now() - timedelta(days=days)
    old = [note for note in manager.read().notes if note.archived_before(cutoff)]
    if dry_run:
        return {
            "days": days,
            "would_drop": len(old),
            "dropped": 0,
            "sample": [n.note_id for n in old[:10]],
        }
    lines = [n.to_entry() for n in old]
    event = audit_begin(
        actor, "archive.purge", "archive", f"older than {days} days", {"lines": lines}, None
    )

    def write() -> dict[str, Any]:
        # exactly the lines in the audit event: the event is enough to undo it
        dropped = manager.drop(old)
        return {
            "days": days,
            "would_drop": len(old),
            "dropped": len(dropped),
            "sample": [n.note_id for n in old[:10]],
        }

    return dict(audited(event, write))


def _undo_archive_purge(before: dict[str, Any], after: Any) -> dict[str, Any]:
    manager = archive_manager()
    present = {json_key(line.entry) for line in manager.read_lines() if line.entry}
    missing = [e for e in before["lines"] if json_key(e) not in present]
    if missing:
        manager.append_entries(missing)
    return {"restored_lines": len(missing)}


def json_key(entry: dict[str, Any]) -> str:

    return json.dumps(entry, sort_keys=True)


def archive_restore_many(*, actor: Actor, note_ids: list[str]) -> BulkResult:
    """Restore several archived notes under one batch; conflicts are reported, not forced."""
    result = BulkResult(uuid.uuid4(), "restore", [], [])
    for note_id in dict.fromkeys(note_ids):
        try:
            note_restore(actor=actor, note_id=note_id, batch_id=result.batch_id)
            result.done.append(note_id)
        except (NoteNotFound, RestoreConflict, InvalidNote) as e:
            result.failed.append((note_id, str(e)))
    return result


UNDO["archive.purge"] = _undo_archive_purge
