"""Audited maintenance of archive.jsonl: purge, bulk restore."""

from __future__ import annotations

import uuid
from collections import Counter
from dataclasses import replace
from typing import Any

from memory_app.notes.job_params import MAX_DAYS
from memory_app.notes.lib import NoteNotFound, RestoreConflict
from memory_app.notes.lib.archive import ArchivedNote
from memory_app.notes.services.notes import note_restore
from memory_app.notes.stores import archive_manager
from qqweb.audit.services import BulkResult, audit_begin, audited
from qqweb.lib.actors import Actor
from qqweb.lib.errors import DimensionMismatch, InvalidInput


def archive_purge(
    *,
    actor: Actor,
    days: int,
    dry_run: bool = False,
    planned: list[dict[str, Any]] | None = None,
    batch_id: uuid.UUID | None = None,
) -> dict[str, Any]:
    """Drop archive lines older than ``days`` (restored or not); unparseable lines stay.
    A dry run only counts. The library's purge, step by step: the planned lines go into
    the audit event before the file is touched, and a line that changed meanwhile (a
    restore marked it) is kept and listed in ``kept``, so undo puts back exactly the
    lines dropped. ``planned`` (a dry run's lines, as entries) drops exactly those."""
    if isinstance(days, bool) or not isinstance(days, int) or not 0 <= days <= MAX_DAYS:
        raise InvalidInput("days", f"must be a whole number of days, 0 to {MAX_DAYS}")
    manager = archive_manager()
    plan = manager.plan_purge(days)
    if planned is not None:
        plan = replace(plan, lines=[ArchivedNote.from_entry(entry) for entry in planned])
    summary = {
        "days": days,
        "would_drop": len(plan.lines),
        "dropped": 0,
        "sample": [n.note_id for n in plan.lines[:10]],
    }
    if dry_run:
        return summary
    lines = [n.to_entry() for n in plan.lines]
    event = audit_begin(
        actor, "archive.purge", "archive", f"older than {days} days", {"lines": lines}, batch_id
    )

    def write() -> dict[str, Any]:
        dropped = Counter(n.key for n in manager.apply_purge(plan))
        kept = []
        for note in plan.lines:
            if dropped[note.key] > 0:
                dropped[note.key] -= 1
            else:
                kept.append(note.to_entry())
        return {**summary, "dropped": len(plan.lines) - len(kept), "kept": kept}

    return dict(audited(event, write))


def _undo_archive_purge(before: dict[str, Any], after: Any) -> dict[str, Any]:
    """Append the lines the purge dropped (its plan, less what it kept) and are not back."""
    manager = archive_manager()
    skip = Counter(ArchivedNote.from_entry(e).key for e in (after or {}).get("kept", []))
    skip.update(n.key for n in manager.read().notes)
    missing = []
    for entry in before["lines"]:
        note = ArchivedNote.from_entry(entry)
        if skip[note.key] > 0:
            skip[note.key] -= 1
        else:
            missing.append(note)
    if missing:
        manager.append(missing)
    return {"restored_lines": len(missing)}


def archive_restore_many(*, actor: Actor, note_ids: list[str]) -> BulkResult:
    """Restore several archived notes under one batch; conflicts are reported, not forced."""
    result = BulkResult(uuid.uuid4(), "restore", [], [])
    for note_id in dict.fromkeys(note_ids):
        try:
            note_restore(actor=actor, note_id=note_id, batch_id=result.batch_id)
            result.done.append(note_id)
        except (NoteNotFound, RestoreConflict, InvalidInput, DimensionMismatch) as e:
            result.failed.append((note_id, str(e)))
    return result


UNDO_HANDLERS = {"archive.purge": _undo_archive_purge}  # registered in MemoryAppConfig.ready()
