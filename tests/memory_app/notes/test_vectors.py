"""Semantic search through the in-process vector index, kept in step with MongoDB."""

import time

import numpy as np
import pytest
from django.conf import settings
from pymongo import MongoClient, monitoring

from memory_app.notes.lib.mongo_store import MongoNotesStore, utcnow_naive
from memory_app.notes.lib.replica.index import VectorIndex
from memory_app.notes.stores import notes_store
from qqweb.lib.embeddings import HashingEmbedder
from qqweb.lib.errors import DimensionMismatch

pytestmark = pytest.mark.usefixtures("mongo")

EMB = HashingEmbedder(384)


def vec(text):
    return [float(x) for x in EMB.embed([text])[0]]


def add(store, note_id, text, section="Key Topics", embedding=None):
    store.upsert_note(note_id, text, vec(text) if embedding is None else embedding, section)


def test_search_similar_ranks_by_cosine_with_the_seed_shape():
    store = notes_store()
    add(store, "note_000000000001", "Lumen uses MongoDB for vector search")
    add(store, "note_000000000002", "Priya reviews pull requests on Fridays")
    add(store, "note_000000000003", "MongoDB vector search in Lumen", section="Important Facts")
    results = store.search_similar(vec("vector search with MongoDB"), limit=2)
    assert [r["note_id"] for r in results] == ["note_000000000003", "note_000000000001"]
    assert set(results[0]) == {"note_id", "content", "section", "importance", "score"}
    assert 0 < results[1]["score"] < results[0]["score"] <= 1
    only = store.search_similar(vec("vector search with MongoDB"), section="Key Topics")
    assert [r["note_id"] for r in only][:1] == ["note_000000000001"]


def _wait_for(predicate, seconds=2.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


def test_new_changed_and_deleted_notes_are_visible_within_two_seconds():
    store = notes_store()
    add(store, "note_000000000001", "Kafka streams events")
    query = vec("Grafana dashboards for metrics")
    assert [r["note_id"] for r in store.search_similar(query)] == ["note_000000000001"]

    add(store, "note_000000000002", "Grafana dashboards for metrics")  # written by "the agent"
    assert _wait_for(lambda: store.search_similar(query)[0]["note_id"] == "note_000000000002")

    add(store, "note_000000000001", "Grafana dashboards show metrics")  # content changed
    assert _wait_for(lambda: len([r for r in store.search_similar(query) if r["score"] > 0.5]) == 2)

    store.delete_note("note_000000000002")
    assert _wait_for(
        lambda: [r["note_id"] for r in store.search_similar(query)] == ["note_000000000001"]
    )
    assert not store.vector_index.holds("note_000000000002")


def test_vectors_of_another_dimension_are_counted_never_compared():
    store = notes_store()
    add(store, "note_000000000001", "Lumen uses MongoDB")
    add(store, "note_000000000002", "qwen vector", embedding=[0.5] * 1024)
    add(store, "note_000000000003", "embedding failed", embedding=[])
    result = store.vector_index.search(vec("Lumen MongoDB"), limit=10)
    assert [i for i, _ in result.hits] == ["note_000000000001"]
    assert result.skipped_other_dimensions == {1024: 1}


def test_a_query_of_a_dimension_no_note_has_is_a_plain_error():
    store = notes_store()
    add(store, "note_000000000001", "qwen vector", embedding=[0.5] * 1024)
    with pytest.raises(DimensionMismatch, match="384 dimensions but the stored vectors have 1024"):
        store.search_similar(vec("anything"))


def test_vector_search_falls_back_when_the_server_has_none():
    store = notes_store()
    add(store, "note_000000000001", "Lumen uses MongoDB")
    store.vector_index = VectorIndex(store, vector_search_index="notes_vectors")
    try:
        assert [r["note_id"] for r in store.search_similar(vec("Lumen"))] == ["note_000000000001"]
    finally:
        store.vector_index.close()


def test_scores_match_exact_cosine():
    store = notes_store()
    rng = np.random.default_rng(3)
    vectors = rng.normal(size=(50, 16))
    now = utcnow_naive()
    store.collection.insert_many(
        [
            {
                "note_id": f"note_{i:012x}",
                "content": str(i),
                "embedding": v.tolist(),
                "section": "Key Topics",
                "importance": 0.5,
                "created_at": now,
                "updated_at": now,
            }
            for i, v in enumerate(vectors)
        ]
    )
    assert _wait_for(lambda: store.vector_index.dimensions() == {16: 50}, seconds=5)
    query = rng.normal(size=16)
    expected = vectors @ query / (np.linalg.norm(vectors, axis=1) * np.linalg.norm(query))
    best = np.argsort(-expected)[:5]
    results = store.search_similar(query.tolist(), limit=5)
    assert [r["note_id"] for r in results] == [f"note_{i:012x}" for i in best]
    assert np.allclose([r["score"] for r in results], expected[best], atol=1e-5)


def _exact(store, query, limit):
    docs = [
        d for d in store.collection.find({}, {"note_id": 1, "embedding": 1}) if d.get("embedding")
    ]
    matrix = np.asarray([d["embedding"] for d in docs], dtype=np.float32)
    scores = matrix @ query / (np.linalg.norm(matrix, axis=1) * np.linalg.norm(query))
    return [docs[i]["note_id"] for i in np.argsort(-scores)[:limit]]


def test_a_restarted_process_starts_from_its_saved_index_and_catches_up(tmp_path):
    store = notes_store()
    for i, text in enumerate(["Kafka streams events", "Grafana dashboards", "Priya likes tea"]):
        add(store, f"note_00000000000{i}", text)
    first = VectorIndex(store, directory=tmp_path, use_change_stream=False)
    assert first.holds("note_000000000000")
    first.close()
    assert (tmp_path / "current.json").exists()

    # while no qqweb process runs, the agent adds, rewrites and deletes notes
    now = utcnow_naive()
    store.collection.insert_one(
        {
            "note_id": "note_000000000009",
            "content": "Grafana metrics",
            "section": "Key Topics",
            "embedding": vec("Grafana dashboards for metrics"),
            "created_at": now,
            "updated_at": now,
        }
    )
    store.collection.update_one(
        {"note_id": "note_000000000000"},
        {"$set": {"embedding": vec("Grafana alerts for metrics"), "updated_at": now}},
    )
    store.collection.delete_one({"note_id": "note_000000000001"})

    again = VectorIndex(store, directory=tmp_path, use_change_stream=False)
    try:
        assert again.wait_caught_up(timeout=10)  # it answers from the snapshot before that
        query = np.asarray(vec("Grafana dashboards for metrics"))
        hits = [i for i, _ in again.search(query, limit=10).hits]
        assert hits == _exact(store, query, 10)
        assert not again.holds("note_000000000001")
    finally:
        again.close()


def test_a_search_while_the_index_is_still_loading_says_so_instead_of_hanging():
    from memory_app.notes.lib.replica.index import IndexWarming

    store = notes_store()
    add(store, "note_000000000001", "Kafka streams events")
    index = VectorIndex(store, ready_timeout=0.0, use_change_stream=False)
    index._started = True  # its loader has not got anywhere yet
    with pytest.raises(IndexWarming, match="the search index is loading"):
        index.search(vec("Kafka"), limit=1)


@pytest.mark.parametrize("use_change_stream", [True, False], ids=["change stream", "id diff"])
def test_in_step_holds_what_the_agent_wrote_and_deleted_an_instant_before(
    tmp_path, use_change_stream
):
    store = notes_store()
    add(store, "note_000000000001", "Kafka streams events")
    add(store, "note_000000000002", "Grafana dashboards")
    # the follower looks once an hour: only in_step brings this index in step
    index = VectorIndex(
        store, refresh_interval=3600, directory=tmp_path, use_change_stream=use_change_stream
    )
    try:
        assert index.wait_caught_up(timeout=10)
        assert index.follows_change_stream is use_change_stream
        store.collection.delete_one({"note_id": "note_000000000001"})  # the agent's writes
        now = utcnow_naive()
        store.collection.insert_one(
            {
                "note_id": "note_000000000003",
                "content": "Grafana metrics",
                "section": "Key Topics",
                "embedding": vec("Grafana metrics"),
                "created_at": now,
                "updated_at": now,
            }
        )
        assert index.in_step(timeout=10)
        notes = index.read(lambda model: set(model.rows))
        assert notes == {"note_000000000002", "note_000000000003"}
        assert index.holds("note_000000000003") and not index.holds("note_000000000001")
    finally:
        index.close()


# --- reading every vector in bounded queries (SecantusDB's daemon, issue 28) -----------------


class EmbeddingsPerQuery(monitoring.CommandListener):
    """How many embeddings each query (a find and its getMores) brought back."""

    def __init__(self) -> None:
        self.counts: dict[object, int] = {}
        self._cursor_of: dict[int, object] = {}

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        if event.command_name == "getMore":
            self._cursor_of[event.request_id] = event.command["getMore"]
        elif event.command_name == "find":
            self._cursor_of[event.request_id] = ("find", event.request_id)

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        cursor = event.reply.get("cursor") if event.command_name in ("find", "getMore") else None
        if cursor is None:
            return
        key = self._cursor_of.pop(event.request_id)
        if event.command_name == "find" and cursor.get("id"):
            key = cursor["id"]  # its getMores name this id
        batch = cursor.get("firstBatch") or cursor.get("nextBatch") or []
        found = sum(1 for d in batch if d.get("embedding"))
        self.counts[key] = self.counts.get(key, 0) + found

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        self._cursor_of.pop(event.request_id, None)

    def most(self) -> int:
        return max(self.counts.values(), default=0)


def _listened_store():
    listener = EmbeddingsPerQuery()
    client = MongoClient(settings.MONGODB_URI, tz_aware=False, event_listeners=[listener])
    store = MongoNotesStore(database=settings.QQ_MONGO_DB, collection="notes", client=client)
    return store, client, listener


def _agent_notes(rng):
    """300 notes as the agent writes them: the contract's two id shapes (``note_`` + 12
    hex, 16 hex) and 100 of a shape it does not promise, which all fall in one window."""
    ids = [f"note_{rng.integers(0, 16**12):012x}" for _ in range(100)]
    ids += [f"{rng.integers(0, 16**15):016x}" for _ in range(100)]
    ids += [f"imported-{i:04d}" for i in range(100)]
    now = utcnow_naive()
    return [
        {
            "note_id": note_id,
            "content": f"note {i}",
            "section": "Key Topics",
            "embedding": rng.standard_normal(384).tolist(),
            "importance": 0.5,
            "created_at": now,
            "updated_at": now,
        }
        for i, note_id in enumerate(ids)
    ]


def _finds_itself(index, docs):
    """Every note is held, and its own vector finds it first."""
    return all(
        index.holds(d["note_id"])
        and index.search(d["embedding"], limit=1).hits[0][0] == d["note_id"]
        for d in docs
    )


def _loads_every_note_in_queries_of_at_most(batch: int, docs, tmp_path) -> None:
    """A first load (no snapshot) of ``docs``, already in MongoDB, asks for at most
    ``batch`` embeddings a query and then holds every one of them."""
    store, client, listener = _listened_store()
    index = VectorIndex(store, directory=tmp_path, use_change_stream=False, load_batch=batch)
    try:
        assert index.wait_caught_up(timeout=60)
        assert listener.most() <= batch
        assert index.search(docs[0]["embedding"], limit=1).compared == len(docs)
        assert _finds_itself(index, docs)
    finally:
        index.close()
        client.close()


def test_a_first_load_never_asks_the_server_for_more_than_a_batch_of_embeddings(tmp_path):
    """SecantusDB's daemon reads a find's whole result before its first batch: every
    vector in one find grew it past 10 GB at 100k notes and it was killed before the first
    search. A load without a snapshot asks for at most ``load_batch`` embeddings a query
    and still holds every note."""
    docs = _agent_notes(np.random.default_rng(28))
    notes_store().collection.insert_many([dict(d) for d in docs])
    _loads_every_note_in_queries_of_at_most(40, docs, tmp_path)


def test_a_window_holding_far_more_notes_than_expected_is_still_read_whole_in_bounded_queries(
    tmp_path,
):
    """Ids of the contract's shape that happen to crowd one place (here 200 of 300
    share their first four hex digits, where a uniform spread puts about 20 there) are
    read in windows sized from the ids read just before, still at most ``load_batch``
    embeddings a query, and every note is held."""
    rng = np.random.default_rng(41)
    docs = _agent_notes(rng)
    for i, d in enumerate(docs[:200]):
        d["note_id"] = f"note_0000{i:08x}"
    notes_store().collection.insert_many([dict(d) for d in docs])
    _loads_every_note_in_queries_of_at_most(40, docs, tmp_path)


def test_many_notes_changed_since_the_snapshot_are_read_a_batch_at_a_time(tmp_path):
    """The agent re-embedded every note while no qqweb process ran: the catch-up after the
    saved snapshot re-reads them all, at most ``load_batch`` embeddings a query, and
    search answers with the new vectors."""
    rng = np.random.default_rng(14)
    docs = _agent_notes(rng)
    collection = notes_store().collection
    collection.insert_many([dict(d) for d in docs])
    first = VectorIndex(notes_store(), directory=tmp_path, use_change_stream=False)
    assert first.wait_caught_up(timeout=60)
    first.close()
    later = utcnow_naive()
    for d in docs:  # re-embedded
        d["embedding"] = rng.standard_normal(384).tolist()
        collection.update_one(
            {"note_id": d["note_id"]},
            {"$set": {"embedding": d["embedding"], "updated_at": later}},
        )
    store, client, listener = _listened_store()
    again = VectorIndex(store, directory=tmp_path, use_change_stream=False, load_batch=40)
    try:
        assert again.wait_caught_up(timeout=60)
        assert listener.most() <= 40
        assert _finds_itself(again, docs)
    finally:
        again.close()
        client.close()
