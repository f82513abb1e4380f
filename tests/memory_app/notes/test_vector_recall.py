"""The vector index's approximate stage against the exact scan, on real all-MiniLM-L6-v2
embeddings of agent-like notes (tests/fixtures/minilm_notes.npz, written by
scripts/vector_fixture.py)."""

from pathlib import Path

import numpy as np
import pytest

from memory_app.notes.lib.replica import segments as vector_segments
from memory_app.notes.lib.replica.index import VectorIndex
from memory_app.notes.stores import notes_store, vector_indexes_close

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "minilm_notes.npz"


def _fixture():
    data = np.load(FIXTURE)
    vectors = data["vectors"].astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    queries = data["query_vectors"].astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    return vectors, queries


def _exact_top(vectors, query, k):
    scores = vectors @ query
    return [int(i) for i in np.argsort(-scores, kind="stable")[:k]], scores


def test_the_inverted_file_finds_what_the_exact_scan_finds_on_real_embeddings(tmp_path):
    vectors, queries = _fixture()
    ids = [f"note_{i:012x}" for i in range(len(vectors))]
    index = VectorIndex(None, directory=tmp_path, exact_below=0)  # always the lists
    index.add_vectors(ids, ["Key Topics"] * len(ids), vectors)
    probes = np.vstack([queries, vectors[::15]])  # the queries and 200 notes
    recalls = []
    for probe in probes:
        truth, scores = _exact_top(vectors, probe, 10)
        hits = index.search(probe, limit=10).hits
        found = {int(note_id[5:], 16) for note_id, _ in hits}
        recalls.append(len(found & set(truth)) / 10)
        for note_id, score in hits:  # scores are exact cosines, whatever the ranking
            assert abs(score - scores[int(note_id[5:], 16)]) < 1e-5
    assert np.mean(recalls) >= 0.99, np.mean(recalls)


def test_a_note_the_index_does_not_hold_finds_what_the_exact_scan_finds(tmp_path):
    """A new note's text (a query nowhere in the index, its 10th neighbour far off)
    finds the notes the exact scan finds: the lists searched widen to reach them."""
    vectors, _ = _fixture()
    held, kept = vectors[::10], np.delete(vectors, np.s_[::10], axis=0)
    ids = [f"note_{i:012x}" for i in range(len(kept))]
    index = VectorIndex(None, directory=tmp_path, exact_below=0)  # always the lists
    index.add_vectors(ids, ["Key Topics"] * len(ids), kept)
    recalls = []
    for probe in held:
        truth, _ = _exact_top(kept, probe, 10)
        found = {int(note_id[5:], 16) for note_id, _ in index.search(probe, limit=10).hits}
        recalls.append(len(found & set(truth)) / 10)
    assert np.mean(recalls) >= 0.99, np.mean(recalls)


def test_a_saved_index_reopens_memory_mapped_with_the_same_answers(tmp_path):
    vectors, queries = _fixture()
    ids = [f"note_{i:012x}" for i in range(len(vectors))]
    first = VectorIndex(None, directory=tmp_path, exact_below=0)
    first.add_vectors(ids, ["Key Topics"] * len(ids), vectors)

    from memory_app.notes.lib.replica.state import load_snapshot

    snapshot = load_snapshot(tmp_path, generation=0)
    assert snapshot is not None
    segment = snapshot.segments[384]
    assert isinstance(segment.vectors, np.memmap)  # shared pages, not a private copy
    again = VectorIndex(None)
    again._install(snapshot)
    again._ready.set()
    for probe in queries[:20]:
        assert again.search(probe, limit=10).hits == first.search(probe, limit=10).hits


def test_a_segment_written_to_disk_holds_the_same_rows_as_one_kept_in_memory(tmp_path):
    """The saved rows are written sorted by list a block at a time (no second copy of
    the vectors in memory): each note keeps its own vector and its list."""
    from memory_app.notes.lib.replica.segments import build_segment

    vectors, _ = _fixture()
    ids = [f"note_{i:012x}" for i in range(len(vectors))]
    sections = ["Key Topics"] * len(ids)
    in_memory = build_segment(384, ids, sections, vectors, None, exact_below=0)
    centroids = in_memory.lists.centroids  # the same lists, not a second k-means
    saved = build_segment(384, ids, sections, vectors, tmp_path, exact_below=0, centroids=centroids)
    assert isinstance(saved.vectors, np.memmap)
    assert list(saved.ids) == list(in_memory.ids)
    assert np.array_equal(np.asarray(saved.vectors), in_memory.vectors)
    rows = [int(note_id[5:], 16) for note_id in saved.ids]
    assert np.array_equal(np.asarray(saved.vectors), vectors[rows])
    assert np.array_equal(saved.lists.offsets, in_memory.lists.offsets)


@pytest.mark.django_db
@pytest.mark.usefixtures("mongo")
def test_search_over_notes_in_mongodb_finds_what_the_exact_scan_finds(monkeypatch):
    """The app's own index (memory_app.notes.stores), fed from the notes' documents, forced onto
    its approximate path by EXACT_BELOW as a large collection would be."""
    monkeypatch.setattr(vector_segments, "EXACT_BELOW", 0)
    vector_indexes_close()  # the next index is made as a process started with that setting
    vectors, queries = _fixture()
    data = np.load(FIXTURE)
    store = notes_store()
    store.collection.insert_many(
        [
            {
                "note_id": f"note_{i:012x}",
                "content": str(text),
                "embedding": data["vectors"][i].astype(float).tolist(),  # as the agent stores
                "section": "Key Topics",
                "importance": 0.5,
                "metadata": {},
            }
            for i, text in enumerate(data["texts"])
        ]
    )
    index = store.vector_index
    recalls = []
    for probe in queries:
        truth, _ = _exact_top(vectors, probe, 10)
        hits = index.search(probe, limit=10).hits
        recalls.append(len({int(h[0][5:], 16) for h in hits} & set(truth)) / 10)
    segment = index._snapshot.segments[384]
    assert segment.lists is not None  # the inverted file answered, not the exact scan
    assert np.mean(recalls) >= 0.99, np.mean(recalls)


def test_notes_folded_into_the_index_are_found_as_the_exact_scan_finds_them(tmp_path):
    """A fold (new notes written into new segments) keeps the lists it had and puts each
    new note in its nearest one: recall stays where it was."""
    from memory_app.notes.lib.replica.follow import fold

    vectors, queries = _fixture()
    ids = [f"note_{i:012x}" for i in range(len(vectors))]
    index = VectorIndex(None, directory=tmp_path, exact_below=0)
    index.add_vectors(ids[:2000], ["Key Topics"] * 2000, vectors[:2000])
    centroids = index._snapshot.segments[384].lists.centroids
    for i in range(2000, len(vectors)):  # as the follower puts changed notes
        index._put({"note_id": ids[i], "section": "Key Topics", "embedding": vectors[i].tolist()})
    fold(index)
    segment = index._snapshot.segments[384]
    assert len(segment) == len(vectors) and not index._delta
    assert np.array_equal(segment.lists.centroids, centroids)  # kept, not trained again
    recalls = []
    for probe in np.vstack([queries, vectors[2000::10]]):
        truth, _ = _exact_top(vectors, probe, 10)
        hits = index.search(probe, limit=10).hits
        recalls.append(len({int(h[0][5:], 16) for h in hits} & set(truth)) / 10)
    assert np.mean(recalls) >= 0.99, np.mean(recalls)


def test_a_fold_of_more_new_notes_than_one_chunk_keeps_every_note(tmp_path):
    """More than ``CHUNK`` (4,096) changed notes folded into a segment with lists at once
    (the agent re-embedded a few thousand notes): before, the fold failed (the new rows'
    lists were counted one chunk short), and so did every fold after it."""
    from memory_app.notes.lib.replica.follow import fold
    from memory_app.notes.lib.replica.state import CHUNK

    rng = np.random.default_rng(7)
    base = 20_000  # enough rows that the fold keeps the lists it has
    vectors = rng.standard_normal((base + CHUNK + 500, 32)).astype(np.float32)
    ids = [f"note_{i:012x}" for i in range(len(vectors))]
    index = VectorIndex(None, directory=tmp_path, exact_below=0)
    index.add_vectors(ids[:base], [""] * base, vectors[:base])
    centroids = index._snapshot.segments[32].lists.centroids
    for i in range(base, len(vectors)):
        index._put({"note_id": ids[i], "section": "", "embedding": vectors[i].tolist()})
    fold(index)
    segment = index._snapshot.segments[32]
    assert len(segment) == len(vectors) and not index._delta
    assert np.array_equal(segment.lists.centroids, centroids)  # a fold, not a new build
    for i in (0, base - 1, base, base + CHUNK, len(vectors) - 1):
        assert index.search(vectors[i], limit=1).hits[0][0] == ids[i]
