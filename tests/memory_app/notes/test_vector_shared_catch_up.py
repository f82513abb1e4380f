"""Processes that open the same vector snapshot (gunicorn's workers after a restart)
catch up with MongoDB with one diff between them, not one each (issue 35: every worker
diffed every note id at start, 66% of its time in the first minutes at 1M notes), and
each still holds every note the agent wrote while none ran."""

import os
import threading
import time

import pytest

from memory_app.notes.lib.mongo_store import MongoNotesStore
from memory_app.notes.lib.replica import shared_diff
from memory_app.notes.lib.replica.index import VectorIndex
from memory_app.notes.stores import notes_store
from tests.helpers import add_note, agent_writes

pytestmark = pytest.mark.usefixtures("mongo")


def _counting_diffs(store: MongoNotesStore) -> list[int]:
    """``store`` counting its full id reads (each is one process's diff of every note)."""
    calls = [0]
    read = store.id_versions
    lock = threading.Lock()

    def counted(*args, **kwargs):
        with lock:
            calls[0] += 1
        yield from read(*args, **kwargs)

    store.id_versions = counted  # type: ignore[method-assign]
    return calls


def _snapshot_then_agent_writes(tmp_path) -> None:
    for i in range(1, 6):
        add_note(f"note_00000000000{i}", f"note {i} about Kafka")
    first = VectorIndex(notes_store(), directory=tmp_path, use_change_stream=False)
    assert first.holds("note_000000000001")
    first.close()
    agent_writes("note_000000000009", "Grafana dashboards for metrics")  # no process runs
    notes_store().collection.delete_one({"note_id": "note_000000000002"})


def test_two_processes_opening_one_snapshot_diff_it_once(tmp_path, monkeypatch):
    _snapshot_then_agent_writes(tmp_path)
    store = notes_store()
    diffs = _counting_diffs(store)
    one = VectorIndex(store, directory=tmp_path)
    other = VectorIndex(store, directory=tmp_path)

    def both_streams_live() -> None:  # the leader's grace, without guessing its length
        deadline = time.monotonic() + 60
        while not (one.follows_change_stream and other.follows_change_stream):
            assert time.monotonic() < deadline, "a change stream never opened"
            time.sleep(0.05)

    monkeypatch.setattr(shared_diff, "let_others_open", both_streams_live)
    try:
        one.start()
        other.start()
        assert one.wait_caught_up(timeout=60) and other.wait_caught_up(timeout=60)
        assert diffs[0] == 1
        for index in (one, other):
            assert index.holds("note_000000000009")
            assert not index.holds("note_000000000002")
            assert index.holds("note_000000000005")
    finally:
        one.close()
        other.close()


def test_a_process_whose_stream_opened_after_the_shared_diff_began_diffs_itself(
    tmp_path, monkeypatch
):
    """A result older than this process's change stream could miss a note written in
    between: the later process diffs again (and finds what was written meanwhile)."""
    monkeypatch.setattr(shared_diff, "LEASE_GRACE_S", 0.0)
    _snapshot_then_agent_writes(tmp_path)
    store = notes_store()
    diffs = _counting_diffs(store)
    first = VectorIndex(store, directory=tmp_path)
    try:
        assert first.wait_caught_up(timeout=60)
    finally:
        first.close()
    agent_writes("note_000000000007", "Loki keeps the logs")
    later = VectorIndex(store, directory=tmp_path)
    try:
        assert later.wait_caught_up(timeout=60)
        assert later.holds("note_000000000007") and later.holds("note_000000000009")
        assert diffs[0] == 2
    finally:
        later.close()


def test_the_result_outlives_the_snapshot_folder_a_fold_removes(tmp_path):
    """The leader folds (and removes the folder it opened) right after its diff; a process
    still waiting for the lease takes the result all the same."""
    snapshot = tmp_path / "state-abc"
    snapshot.mkdir()
    opened = time.time()
    changed, itself = shared_diff.catch_up(snapshot, lambda: opened, lambda: {"n1"}, bool)
    assert (changed, itself) == ({"n1"}, True)
    snapshot.rmdir()  # the leader's fold published another snapshot

    def never() -> set[str]:
        raise AssertionError("diffed again")

    assert shared_diff.catch_up(snapshot, lambda: opened, never, bool) == ({"n1"}, False)


def test_catch_up_files_go_an_hour_after_their_snapshot(tmp_path):
    from memory_app.notes.lib.replica import state

    for name in ("state-old", "state-kept"):
        shared_diff._write(tmp_path / name, time.time(), {"n1"})
    (tmp_path / "state-kept").mkdir()
    long_ago = time.time() - state.BUILD_ABANDONED_S - 60
    for path in tmp_path.glob("catch-up-*"):
        os.utime(path, (long_ago, long_ago))
    fresh = tmp_path / "state-new"
    shared_diff._write(fresh, time.time(), {"n2"})
    state._clean(tmp_path, keep="state-kept")
    left = sorted(p.name for p in tmp_path.glob("catch-up-*"))
    assert left == ["catch-up-state-kept.diff.json", "catch-up-state-new.diff.json"]
