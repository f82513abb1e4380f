"""What every crash test does: run an action killed after each write, recover as a user
would, and check nothing is lost or doubled (test_crash_recovery*.py)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.conf import settings as django_settings
from django.utils import timezone

from memory_app.notes.models import ReviewPair
from memory_app.notes.stores import notes_store
from qqweb.audit.models import AuditEvent
from qqweb.jobs.runs import runs_reap
from qqweb.lib.actors import Actor
from tests.crashing import CRASH_EXIT, CrashServer

ADMIN = Actor("user", "ada-admin", None, "admin")


def crash_at_every_step(
    server: CrashServer,
    action: str,
    stores: dict[str, Any],
    plant: Callable[[], dict[str, Any]],
    recover: Callable[[int, list[str]], None],
) -> list[str]:
    """Plant, run ``action`` killed after write 1, recover and check; again killed after
    write 2, ...; and once more when it finishes. Returns the writes of the whole action."""
    crash_after = 1
    while True:
        args = plant()
        rc, steps = server.run(action, args, stores, crash_after)
        assert rc == CRASH_EXIT or len(steps) < crash_after, (rc, steps)
        recover(crash_after if rc == CRASH_EXIT else 0, steps)
        if rc == 0:
            return steps
        crash_after += 1


def reap() -> None:
    """The reaper, as beat runs it, at a time when whatever the child left is old."""
    runs_reap(now=timezone.now() + timedelta(days=1))
    assert not AuditEvent.objects.filter(status=AuditEvent.PENDING).exists()


def fresh_memory() -> None:
    notes_store().collection.delete_many({})
    archive = Path(django_settings.MEMORY_DIR) / "archive.jsonl"
    archive.unlink(missing_ok=True)
    AuditEvent.objects.all().delete()
    ReviewPair.objects.all().delete()


def archive_lines() -> list[dict[str, Any]]:
    path = Path(django_settings.MEMORY_DIR) / "archive.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def memory_state() -> dict[str, Any]:
    """Where every note is: its text in the collection, its unrestored archive lines."""
    notes = {d["note_id"]: d["content"] for d in notes_store().collection.find({})}
    archived = [(x["note_id"], x["content"]) for x in archive_lines() if not x.get("restored")]
    return {"notes": notes, "archived": sorted(archived)}


def assert_nothing_lost_or_doubled(note_ids: set[str], where: str) -> None:
    docs = list(notes_store().collection.find({}, {"note_id": 1}))
    in_collection = Counter(d["note_id"] for d in docs)
    lines = archive_lines()
    archived = Counter(x["note_id"] for x in lines if not x.get("restored"))
    assert max(in_collection.values(), default=1) == 1, f"{where}: a note doubled {docs}"
    same_lines = Counter((x["note_id"], x["archived_at"]) for x in lines)
    assert max(same_lines.values(), default=1) == 1, f"{where}: a line doubled {lines}"
    for note_id in note_ids:
        places = in_collection[note_id] + archived[note_id]
        assert places == 1, f"{where}: {note_id} is in {places} places ({lines})"
    assert set(in_collection) | set(archived) == note_ids, where


def events(action: str, status: str) -> list[AuditEvent]:
    return list(AuditEvent.objects.filter(action=action, status=status, undo_of__isnull=True))
