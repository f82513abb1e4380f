"""Nothing left half-done after a crash.

Each action (archive a note, restore it, merge or supersede a review pair, purge the
archive, merge two graph entities, import a backup) runs in a child process that is
killed (``os._exit(137)``, as ``kill -9``) right after its first write at the store
boundary, then on fresh data right after its second, and so on until it finishes without
being killed (tests/crashing.py). After each crash the test does what a user or an
operator would: the same action again where it is still offered, and the reaper. Then
every note is in the collection or in ``archive.jsonl``, exactly once; no archive line,
note, graph node or relationship is doubled; no audit event is left pending; and the
action ends done once (by the retry, or by the reaper, which finds the change of a process
that died after it and before its event said so) and its undo puts the original back.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings

from memory_app.notes.lib import NoteNotFound
from memory_app.notes.models import ReviewPair
from memory_app.notes.services.archive import archive_purge
from memory_app.notes.services.notes import note_archive, note_restore
from memory_app.notes.services.review import review_verdict
from memory_app.notes.stores import notes_store
from qqweb.audit.models import AuditEvent
from qqweb.audit.services import audit_undo
from tests.helpers import agent_archive_line, plant_note
from tests.qqweb.crash_steps import (
    ADMIN,
    archive_lines,
    assert_nothing_lost_or_doubled,
    crash_at_every_step,
    events,
    fresh_memory,
    memory_state,
    reap,
)

pytestmark = pytest.mark.django_db(transaction=True)


# --- archive one note ---------------------------------------------------------------------------


def test_an_archive_killed_at_any_step_is_finished_by_a_retry_and_undone_whole(
    crash_server, child_stores
):
    ids = {"note_0000000000c1", "note_0000000000c2"}
    original: dict[str, Any] = {}

    def plant() -> dict[str, Any]:
        fresh_memory()
        for note_id in sorted(ids):
            plant_note(note_id)
        original.update(memory_state())
        return {"note_id": "note_0000000000c1"}

    def recover(crashed_after: int, steps: list[str]) -> None:
        where = f"archive killed after write {crashed_after} of {steps}"
        if notes_store().get_full_note("note_0000000000c1") is not None:
            note_archive(actor=ADMIN, note_id="note_0000000000c1")  # the user clicks again
        reap()
        assert_nothing_lost_or_doubled(ids, where)
        assert "note_0000000000c1" not in memory_state()["notes"], where
        (done,) = events("note.archive", AuditEvent.DONE)  # by the retry, or the reaper
        audit_undo(actor=ADMIN, event_id=done.pk)
        assert memory_state() == original, where

    steps = crash_at_every_step(crash_server, "archive", child_stores, plant, recover)
    assert steps == [
        "AuditEvent.save",
        "ArchiveFile.append",
        "MongoNotesStore.delete_if_unchanged",
        "AuditEvent.save",
    ]


# --- restore from the archive -------------------------------------------------------------------


def test_a_restore_killed_at_any_step_is_finished_by_a_retry_and_undone_whole(
    crash_server, child_stores
):
    ids = {"note_0000000000d1", "note_0000000000d2"}
    original: dict[str, Any] = {}

    def plant() -> dict[str, Any]:
        fresh_memory()
        plant_note("note_0000000000d2")
        line = agent_archive_line("note_0000000000d1", 3)
        (Path(django_settings.MEMORY_DIR) / "archive.jsonl").write_text(json.dumps(line) + "\n")
        original.update(memory_state())
        return {"note_id": "note_0000000000d1"}

    def recover(crashed_after: int, steps: list[str]) -> None:
        where = f"restore killed after write {crashed_after} of {steps}"
        lines = archive_lines()
        if not any(x["note_id"] == "note_0000000000d1" and x.get("restored") for x in lines):
            note_restore(actor=ADMIN, note_id="note_0000000000d1")  # the user clicks again
        reap()
        assert_nothing_lost_or_doubled(ids, where)
        assert "note_0000000000d1" in memory_state()["notes"], where
        (done,) = events("note.restore", AuditEvent.DONE)  # by the retry, or the reaper
        audit_undo(actor=ADMIN, event_id=done.pk)
        assert memory_state() == original, where

    steps = crash_at_every_step(crash_server, "restore", child_stores, plant, recover)
    assert steps == [
        "AuditEvent.save",
        "MongoNotesStore.insert_agent_documents",
        "ArchiveFile.rewrite",
        "AuditEvent.save",
    ]


# --- merge a review pair ------------------------------------------------------------------------


MERGE_A = "Lumen stores its vectors in MongoDB and answers search queries"
MERGE_B = "Lumen stores its vectors in MongoDB and answers search queries fast"
MERGED = "Lumen keeps its vectors in MongoDB and answers search queries fast"  # the curator's


@pytest.mark.parametrize(
    ("verdict", "action", "status", "text"),
    [
        ("merge", "pair.merge", ReviewPair.MERGED, MERGED),  # with the curator's text
        ("supersede", "pair.supersede", ReviewPair.SUPERSEDED, MERGE_A),  # the newer text
    ],
)
def test_a_pair_merge_killed_at_any_step_is_finished_by_a_retry_and_undone_whole(
    crash_server, child_stores, verdict, action, status, text
):
    ids = {"note_0000000000e1", "note_0000000000e2", "note_0000000000e3"}
    original: dict[str, Any] = {}
    content = MERGED if verdict == "merge" else None

    def plant() -> dict[str, Any]:
        fresh_memory()
        plant_note("note_0000000000e1", importance=0.7, days_old=1, content=MERGE_A)
        plant_note("note_0000000000e2", importance=0.4, days_old=9, content=MERGE_B)
        plant_note("note_0000000000e3")
        original.update(memory_state())
        pair = ReviewPair.objects.create(
            note_a="note_0000000000e1",
            note_b="note_0000000000e2",
            hash_a="a",
            hash_b="b",
            similarity=0.97,
        )
        return {"pair_id": pair.pk, "verdict": verdict, "content": content}

    def recover(crashed_after: int, steps: list[str]) -> None:
        where = f"{verdict} killed after write {crashed_after} of {steps}"
        pair = ReviewPair.objects.get()
        if pair.status == ReviewPair.PENDING:  # still in the queue: the curator decides again
            try:
                review_verdict(actor=ADMIN, pair_id=pair.pk, verdict=verdict, content=content)
            except NoteNotFound as e:
                pytest.fail(f"{where}: the retry was refused: {e}")
        reap()
        assert_nothing_lost_or_doubled(ids, where)
        state = memory_state()
        assert "note_0000000000e2" not in state["notes"], where
        assert state["notes"]["note_0000000000e1"] == text, where
        assert ReviewPair.objects.get().status == status, where
        (done,) = events(action, AuditEvent.DONE)
        audit_undo(actor=ADMIN, event_id=done.pk)
        assert memory_state() == original, where
        assert ReviewPair.objects.get().status == ReviewPair.PENDING, where

    steps = crash_at_every_step(crash_server, "merge", child_stores, plant, recover)
    assert steps == [
        "AuditEvent.save",
        "MongoNotesStore.merge_into_primary",
        "ArchiveFile.append",
        "MongoNotesStore.delete_if_unchanged",
        "AuditEvent.save",
        "ReviewPair.save",
    ]


# --- purge the archive --------------------------------------------------------------------------


def test_a_purge_killed_at_any_step_drops_each_old_line_once_and_undo_puts_it_back(
    crash_server, child_stores
):
    old = [agent_archive_line(f"note_00000000f{i:03d}", 200) for i in range(3)]
    recent = agent_archive_line("note_00000000f100", 2)
    ids = {line["note_id"] for line in [*old, recent]}

    def plant() -> dict[str, Any]:
        fresh_memory()
        text = "".join(json.dumps(line) + "\n" for line in [*old, recent])
        (Path(django_settings.MEMORY_DIR) / "archive.jsonl").write_text(text)
        return {"days": 90}

    def recover(crashed_after: int, steps: list[str]) -> None:
        where = f"purge killed after write {crashed_after} of {steps}"
        archive_purge(actor=ADMIN, days=90)  # the admin purges again
        reap()
        assert [x["note_id"] for x in archive_lines()] == [recent["note_id"]], where
        # each line was dropped by one event, done (by the purge, or the reaper): undo of
        # every done purge puts each line back once
        for event in events("archive.purge", AuditEvent.DONE):
            audit_undo(actor=ADMIN, event_id=event.pk)
        assert Counter(x["note_id"] for x in archive_lines()) == Counter(ids), where

    steps = crash_at_every_step(crash_server, "purge", child_stores, plant, recover)
    assert steps == ["AuditEvent.save", "ArchiveFile.rewrite", "AuditEvent.save"]
