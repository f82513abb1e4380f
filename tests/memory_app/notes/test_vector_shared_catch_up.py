"""Processes that open the same vector snapshot (gunicorn's workers after a restart)
catch up with MongoDB with one diff between them, not one each (issue 35: every worker
diffed every note id at start, 66% of its time in the first minutes at 1M notes), and
each still holds every note the agent wrote while none ran."""

import threading

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
    monkeypatch.setattr(shared_diff, "LEASE_GRACE_S", 5.0)  # both streams open meanwhile
    _snapshot_then_agent_writes(tmp_path)
    store = notes_store()
    diffs = _counting_diffs(store)
    one = VectorIndex(store, directory=tmp_path)
    other = VectorIndex(store, directory=tmp_path)
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
