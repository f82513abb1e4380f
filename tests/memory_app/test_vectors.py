"""Semantic search through the in-process vector index, kept in step with MongoDB."""

import time

import numpy as np
import pytest

from memory_app.memory import DimensionMismatch, HashingEmbedder
from memory_app.memory.mongo_store import utcnow_naive
from memory_app.memory.vectors import VectorIndex
from memory_app.stores import notes_store

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
    from memory_app.memory.vectors import IndexWarming

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
