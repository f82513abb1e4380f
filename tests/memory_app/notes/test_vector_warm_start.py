"""A process that starts answers search from the vector index's saved snapshot at once and
catches up with MongoDB afterwards; without a snapshot, a search page says the index is
loading and how far it got, instead of waiting for it.

The catch-up and the first read of every vector take tens of seconds at 100k notes; here
the store's full reads wait until the test lets them go (the real store, on the real
server, held back by a gate), so "before it ends" is certain, not a race."""

import threading

import numpy as np
import pytest
from django.conf import settings
from pymongo import MongoClient, monitoring

from memory_app.notes import stores
from memory_app.notes.lib.mongo_store import MongoNotesStore
from memory_app.notes.lib.replica import follow as vector_follow
from memory_app.notes.lib.replica.index import IndexWarming, VectorIndex
from memory_app.notes.stores import notes_store
from tests.helpers import add_note, agent_writes, vector

pytestmark = pytest.mark.usefixtures("mongo")


def held_back(store, method):
    """``store`` whose ``method`` (a full read) waits until the returned gate is set."""
    gate = threading.Event()
    read = getattr(store, method)

    def waiting(*args, **kwargs):
        if "note_ids" not in kwargs and "object_ids" not in kwargs:
            # every note (or a window of them, read in turn): wait; a few named notes (a
            # writer's): at once
            assert gate.wait(timeout=30), "the test never let the read go"
        yield from read(*args, **kwargs)

    setattr(store, method, waiting)
    return gate


def test_a_restarted_process_answers_from_its_snapshot_before_the_catch_up_ends(tmp_path):
    store = notes_store()
    add_note("note_000000000001", "Kafka streams events")
    add_note("note_000000000002", "Priya likes tea")
    first = VectorIndex(store, directory=tmp_path, use_change_stream=False)
    assert first.holds("note_000000000001")
    first.close()
    agent_writes("note_000000000009", "Grafana dashboards for metrics")

    store = notes_store()
    gate = held_back(store, "id_versions")  # the catch-up's diff
    again = VectorIndex(store, directory=tmp_path, use_change_stream=False, ready_timeout=10)
    try:
        hits = again.search(np.asarray(vector("Kafka streams events")), limit=3).hits
        assert hits[0][0] == "note_000000000001"  # answered from the snapshot ...
        assert not again.caught_up  # ... while the catch-up is still held back
        assert not again.holds("note_000000000009")

        gate.set()
        assert again.wait_caught_up(timeout=10)
        hits = again.search(np.asarray(vector("Grafana dashboards for metrics")), limit=1).hits
        assert hits[0][0] == "note_000000000009"  # written while no process ran
    finally:
        gate.set()
        again.close()


def test_what_qqweb_writes_during_the_catch_up_is_seen_by_its_next_search(tmp_path):
    store = notes_store()
    add_note("note_000000000001", "Kafka streams events")
    first = VectorIndex(store, directory=tmp_path, use_change_stream=False)
    assert first.holds("note_000000000001")
    first.close()

    store = notes_store()
    gate = held_back(store, "id_versions")
    again = VectorIndex(store, directory=tmp_path, use_change_stream=False, ready_timeout=10)
    store.vector_index = again
    try:
        again.search(np.asarray(vector("Kafka")), limit=1)
        store.upsert_note(
            "note_000000000002", "Grafana dashboards", vector("Grafana dashboards"), "Key Topics"
        )
        assert not again.caught_up
        assert store.search_similar(vector("Grafana dashboards"), limit=1)[0]["note_id"] == (
            "note_000000000002"
        )
    finally:
        gate.set()
        again.close()


def test_a_process_without_a_snapshot_says_the_index_is_loading_and_how_far(tmp_path):
    store = notes_store()
    for i in range(3):
        add_note(f"note_00000000000{i}", f"note {i} about Kafka")
    gate = held_back(store, "vector_rows")  # the first read of every vector
    index = VectorIndex(store, directory=tmp_path, use_change_stream=False, ready_timeout=0.2)
    try:
        with pytest.raises(IndexWarming, match=r"the search index is loading \(0 of 3 notes\)"):
            index.search(vector("Kafka"), limit=1)
        gate.set()
        assert index.wait_caught_up(timeout=10)
        assert index.search(vector("Kafka"), limit=3).compared == 3
    finally:
        gate.set()
        index.close()


@pytest.mark.django_db
def test_the_search_and_note_pages_say_the_index_is_loading_instead_of_waiting(
    viewer_client, settings, monkeypatch, tmp_path
):
    add_note("note_0000000000a1", "Kafka streams events")
    store = notes_store()
    gate = held_back(store, "vector_rows")
    index = VectorIndex(store, directory=tmp_path, use_change_stream=False, ready_timeout=0.2)
    key = (stores.os.getpid(), settings.MONGODB_URI, settings.QQ_MONGO_DB, "notes")
    monkeypatch.setitem(stores._indexes, key, index)  # the process's index, just started
    try:
        page = viewer_client.get("/search/", {"q": "Kafka"}).content.decode()
        assert "the search index is loading (0 of 1 notes)" in page
        note = viewer_client.get("/notes/note_0000000000a1/").content.decode()
        assert "Kafka streams events" in note  # the note itself is there
        assert "the search index is loading" in note  # its similar notes are not yet
        gate.set()
        assert index.wait_caught_up(timeout=10)
        page = viewer_client.get("/search/", {"q": "Kafka"}).content.decode()
        assert "loading" not in page and "Kafka streams events" in page
    finally:
        gate.set()
        index.close()


def test_a_web_process_starts_its_index_when_it_starts(settings):
    """What qqweb.wsgi (gunicorn, runserver) and a Celery worker call at start: it returns
    at once and the index loads in the background."""
    add_note("note_0000000000a1", "Kafka streams events")
    stores.vector_index_warm_up()
    index = notes_store().vector_index
    assert index.wait_caught_up(timeout=10)
    assert index.holds("note_0000000000a1")


class Finds(monitoring.CommandListener):
    """The filter of every ``find`` sent to the notes collection."""

    def __init__(self) -> None:
        self.filters: list[dict] = []

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        if event.command_name == "find" and event.command["find"] == "notes":
            projection = event.command.get("projection") or {}
            if "embedding" not in projection:  # the catch-up's (_id, note_id, stamp) reads
                self.filters.append(dict(event.command.get("filter") or {}))

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        pass

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        pass


def test_the_catch_up_reads_ranges_of_note_ids_and_still_finds_every_change(tmp_path, monkeypatch):
    """SecantusDB's daemon answers no other query while it reads a whole find (13.5 s for
    every note at 100k, a page's fetch of 10 notes waiting 12.3 s behind it): the
    catch-up asks for one range of note ids at a time, so the pages' queries are served
    between ranges; the notes the agent wrote while no process ran are found wherever
    their ids fall, below, between or above the ids the snapshot knows."""
    monkeypatch.setattr(vector_follow, "DIFF_WINDOW", 2)
    for i in (2, 4, 6, 8, 10):
        add_note(f"note_{i:012x}", f"note {i} about Kafka")
    first = VectorIndex(notes_store(), directory=tmp_path, use_change_stream=False)
    assert first.holds("note_00000000000a")
    first.close()
    for note_id in ("note_000000000001", "note_000000000005", "note_0000000000ff"):
        agent_writes(note_id, f"Grafana dashboards, {note_id}")
    notes_store().collection.delete_one({"note_id": "note_000000000006"})  # by the agent

    finds = Finds()
    client: MongoClient = MongoClient(settings.MONGODB_URI, event_listeners=[finds])
    store = MongoNotesStore(database=settings.QQ_MONGO_DB, collection="notes", client=client)
    again = VectorIndex(store, directory=tmp_path, use_change_stream=False)
    try:
        assert again.wait_caught_up(timeout=10)
        for note_id in ("note_000000000001", "note_000000000005", "note_0000000000ff"):
            assert again.holds(note_id)
        assert not again.holds("note_000000000006")
        assert again.holds("note_000000000002")
        assert len(finds.filters) > 1  # several reads, each a range of the note_id index
        assert all(set(f) == {"note_id"} for f in finds.filters), finds.filters
    finally:
        again.close()
        client.close()


def _window_sizes(per_id_s: float, ids: int = 100_000) -> list[int]:
    """The sizes of the diff's windows over ``ids`` known notes on a server taking
    ``per_id_s`` a note (a clock that moves only when the server reads)."""
    known = [f"note_{i:012x}" for i in range(ids)]
    now = [0.0]
    sizes, last = [], 0
    for bound in vector_follow.paced_bounds(known, 250, 8000, 0.015, clock=lambda: now[0]):
        at = known.index(bound, last)
        sizes.append(at - last)
        now[0] += (at - last) * per_id_s  # the window just given is read
        last = at
    return sizes


def test_on_a_server_answering_one_query_at_a_time_the_diff_reads_small_windows():
    """SecantusDB's daemon: 63 ms for 1,000 ids (a page's query waits that long behind
    it); the windows stay near 15 ms each."""
    sizes = _window_sizes(63e-6)
    assert sizes[0] == 250
    assert all(200 <= s <= 300 for s in sizes), sizes[:20]


def test_on_a_fast_server_the_diff_windows_grow_to_few_round_trips():
    sizes = _window_sizes(1e-6)
    assert sizes[:4] == [250, 500, 1000, 2000]
    assert max(sizes) == 8000 and len(sizes) < 25
