"""The notes list answered from the read model (memory/read_list.py): fresh after the
agent's writes, the text filter's word-start semantics, and what a process that is still
loading its read model answers."""

import time
from datetime import timedelta

import pytest
from django.urls import reverse

from memory_app.notes.lib.listing import NoteFilter
from memory_app.notes.lib.mongo_store import utcnow_naive
from memory_app.notes.lib.replica import lists as read_list
from memory_app.notes.lib.replica.index import VectorIndex
from memory_app.notes.stores import notes_store
from tests.helpers import HeldReads, add_note, read_model_caught_up, vector, wait_until_counted

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("mongo", "memory_dir")]


def agent_notes(n, start=0):
    now = utcnow_naive()
    return [
        {
            "note_id": f"note_{i:012x}",
            "content": f"agent note {i}",
            "embedding": vector(f"agent note {i}"),
            "section": "Key Topics",
            "importance": 0.5,
            "access_count": 0,
            "created_at": now - timedelta(days=1),
            "updated_at": now - timedelta(minutes=i),
            "last_accessed": None,
        }
        for i in range(start, start + n)
    ]


def listed(client, query=""):
    response = client.get(reverse("memory_app:notes") + query)
    return response.status_code, response.content.decode()


def test_a_note_the_agent_writes_appears_in_the_list_once_the_follower_saw_it(viewer_client):
    notes_store().collection.insert_many(agent_notes(3))
    read_model_caught_up()
    assert "note_000000000002" in listed(viewer_client)[1]
    notes_store().collection.insert_many(agent_notes(1, start=40))
    deadline = time.monotonic() + 10
    while "note_000000000028" not in listed(viewer_client)[1]:  # the follower's next step
        assert time.monotonic() < deadline, "the agent's note never appeared"
        time.sleep(0.1)


def test_the_text_filter_finds_text_at_the_start_of_a_word_in_any_case(viewer_client):
    add_note("note_000000000001", "Lumens glow in the dark")
    add_note("note_000000000002", "ILLUMEN is another word")
    add_note("note_000000000003", "the lumen count, measured")
    read_model_caught_up()
    status, html = listed(viewer_client, "?text=lumen")
    assert status == 200
    assert "note_000000000001" in html and "note_000000000003" in html
    assert "note_000000000002" not in html
    assert "1-2 of 2" in html
    status, html = listed(viewer_client, "?text=THE+lumen+c")
    assert "note_000000000003" in html and "note_000000000001" not in html
    status, html = listed(viewer_client, "?text=%21%21")
    assert status == 400 and "at least one letter or digit" in html


def test_a_large_list_still_loading_says_how_far_it_is_and_offers_a_retry(
    viewer_client, monkeypatch
):
    monkeypatch.setattr(read_list, "SMALL_COLLECTION", 10)
    notes_store().collection.insert_many(agent_notes(12))
    index = notes_store().vector_index
    with index._lock:  # the load cannot finish while the list is asked for
        status, html = listed(viewer_client)
        api = viewer_client.get("/api/notes")
    assert status == 503
    assert "loading (0 of 12 notes)" in html and "Try again" in html
    assert api.status_code == 503 and "loading" in api.json()["error"]["message"]
    read_model_caught_up()
    status, html = listed(viewer_client)
    assert status == 200 and "1-12 of 12" in html
    page = viewer_client.get("/api/notes?limit=5").json()
    second = viewer_client.get(f"/api/notes?limit=5&cursor={page['next_cursor']}").json()
    assert (page["offset"], page["total"], second["offset"]) == (0, 12, 5)


def test_a_large_list_still_loading_says_the_loads_count_without_asking_the_server_again(
    monkeypatch,
):
    """A count is a scan of every note on SecantusDB's daemon (0.6 s at 100k), which the
    load's reads waited behind: a list asked every 0.25 s while the index loaded doubled
    the time to the first search. The list says the count the load began with."""
    monkeypatch.setattr(read_list, "SMALL_COLLECTION", 10)
    notes_store().collection.insert_many(agent_notes(12))
    source = HeldReads(notes_store())
    index = source.vector_index = VectorIndex(source, use_change_stream=False)
    args = {"sort": "updated", "direction": "desc", "limit": 5, "now": utcnow_naive()}
    try:
        index.start()
        wait_until_counted(index)
        for _ in range(3):
            with pytest.raises(read_list.ListLoading) as loading:
                read_list.list_page(source, NoteFilter(), cursor=None, **args)
            assert (loading.value.loaded, loading.value.total) == (0, 12)
        assert source.counts == 1  # the load's own
        source.go.set()
        assert index.wait_caught_up(timeout=30)
        page = read_list.list_page(source, NoteFilter(), cursor=None, **args)
        assert page.total == 12 and len(page.items) == 5
    finally:
        source.go.set()
        index.close()


def test_a_small_list_is_read_from_mongodb_while_the_read_model_loads(viewer_client):
    notes_store().collection.insert_many(agent_notes(4))
    with notes_store().vector_index._lock:
        status, html = listed(viewer_client, "?sort=created")
    assert status == 200 and "note_000000000003" in html and "1-4 of 4" in html


def test_a_note_deleted_since_the_read_model_last_looked_is_skipped_and_the_page_stays_full():
    notes_store().collection.insert_many(agent_notes(6))
    index = VectorIndex(notes_store(), refresh_interval=600, use_change_stream=False)
    try:
        assert index.holds("note_000000000001")  # loaded; the next diff is 10 min away
        notes_store().collection.delete_one({"note_id": "note_000000000001"})
        through = Through(notes_store(), index)
        args = {"sort": "updated", "direction": "desc", "limit": 3, "now": utcnow_naive()}
        first = read_list.list_page(through, NoteFilter(), cursor=None, **args)
        rest = read_list.list_page(through, NoteFilter(), cursor=first.next_cursor, **args)
    finally:
        index.close()
    assert [n.note_id for n in first.items] == [f"note_{i:012x}" for i in (0, 2, 3)]
    assert [n.note_id for n in rest.items] == [f"note_{i:012x}" for i in (4, 5)]
    assert rest.next_cursor is None


class Through:
    """The store, with a test's own index as the one the list reads."""

    def __init__(self, store, index):
        self._store, self.vector_index = store, index

    def __getattr__(self, name):
        return getattr(self._store, name)
