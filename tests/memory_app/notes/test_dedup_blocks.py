"""The full dedup scan's blocks (exact and pruned) against the one-piece exact scan, and
embeddings read from raw BSON."""

from pathlib import Path

import bson
import numpy as np

from memory_app.notes.lib.dedup import blocks as db
from memory_app.notes.lib.mongo.raw_vectors import note_vector
from qqweb.lib.vectors import similar_pairs

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "minilm_notes.npz"


def _pairs(i, j):
    return list(zip(np.asarray(i).tolist(), np.asarray(j).tolist(), strict=True))


def _exact(matrix, threshold, per_block=db.PAIRS_PER_BLOCK):
    blocks = db.exact_blocks(len(matrix), per_block)
    return db.join_pairs([db.exact_block_pairs(matrix, a, b, threshold) for a, b in blocks])


def _pruned(matrix, threshold, per_block=db.PAIRS_PER_BLOCK):
    cells = db.cells_plan(matrix)
    blocks = db.cell_blocks(cells, per_block)
    return db.join_pairs([db.cell_block_pairs(matrix, cells, a, b, threshold) for a, b in blocks])


def _minilm():
    vectors = np.load(FIXTURE)["vectors"].astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_exact_blocks_together_find_every_pair_once():
    matrix = _minilm()[:1500]
    i, j, s = _exact(matrix, 0.8, per_block=20_000)
    assert len(db.exact_blocks(len(matrix), 20_000)) > 20
    found = _pairs(i, j)
    assert len(found) == len(set(found))
    ei, ej, _ = similar_pairs(matrix, 0.8)
    assert set(found) == set(_pairs(ei, ej))
    assert np.allclose(s, np.einsum("ij,ij->i", matrix[i], matrix[j]), atol=1e-5)


def test_changed_blocks_together_find_every_pair_with_a_changed_note_once():
    matrix = _minilm()[:1500]
    changed = np.sort(np.random.default_rng(3).choice(len(matrix), 300, replace=False))
    blocks = db.changed_blocks(len(matrix), len(changed), 30_000)
    assert len(blocks) > 10
    i, j, s = db.join_pairs([db.changed_block_pairs(matrix, changed, a, b, 0.8) for a, b in blocks])
    found = _pairs(i, j)
    assert len(found) == len(set(found))  # a pair of two changed notes too
    ei, ej, _ = similar_pairs(matrix, 0.8)
    touched = set(changed.tolist())
    expected = {(a, b) for a, b in _pairs(ei, ej) if a in touched or b in touched}
    assert any(a in touched and b in touched for a, b in expected)
    assert set(found) == expected
    assert np.allclose(s, np.einsum("ij,ij->i", matrix[i], matrix[j]), atol=1e-5)


def test_changed_notes_on_a_saved_base_find_the_same_pairs_as_on_every_current_vector():
    """The incremental scan on the vector index's saved rows: the changed notes' saved
    rows are stale (set aside), their current vectors appended; the pairs are those of the
    current vectors, each once, named by the joined rows (base, then fresh)."""
    now = _minilm()[:1500]
    rng = np.random.default_rng(4)
    changed_notes = np.sort(rng.choice(len(now), 200, replace=False))
    saved = now.copy()
    saved[changed_notes] = now[rng.permutation(changed_notes)]  # stale rows in the base
    live = np.ones(len(now), dtype=bool)
    live[changed_notes] = False
    fresh = now[changed_notes]
    rows = np.arange(len(now), len(now) + len(fresh))
    blocks = db.changed_blocks(len(now), len(rows), 30_000)
    assert len(blocks) > 5
    parts = [db.changed_pairs_on_base(saved, live, fresh, rows, a, b, 0.8) for a, b in blocks]
    i, j, _ = db.join_pairs(parts)
    name = np.concatenate([np.arange(len(now)), changed_notes])  # joined row -> note
    found = [tuple(sorted(p)) for p in zip(name[i].tolist(), name[j].tolist(), strict=True)]
    assert len(found) == len(set(found))
    ei, ej, _ = similar_pairs(now, 0.8)
    touched = set(changed_notes.tolist())
    expected = {(a, b) for a, b in _pairs(ei, ej) if a in touched or b in touched}
    assert any(a in touched and b in touched for a, b in expected)
    assert set(found) == expected


def test_the_pruned_scan_finds_at_least_99_percent_of_the_pairs_on_real_embeddings():
    matrix = _minilm()
    ei, ej, _ = _exact(matrix, 0.85)
    truth = set(_pairs(ei, ej))
    i, j, s = _pruned(matrix, 0.85, per_block=5_000)
    found = _pairs(i, j)
    assert len(found) == len(set(found))  # a pair sharing several cells is kept once
    assert set(found) <= truth  # scores are exact cosines: no pair below the threshold
    assert len(set(found) & truth) / len(truth) >= 0.99
    assert np.allclose(s, np.einsum("ij,ij->i", matrix[i], matrix[j]), atol=1e-5)


def test_embeddings_read_from_raw_bson_equal_the_decoded_ones():
    rng = np.random.default_rng(3)
    for dim in (1, 10, 11, 384, 1536):
        values = rng.normal(size=dim).tolist()
        note_id, row = note_vector(bson.encode({"note_id": "note_a", "embedding": values}))
        assert note_id == "note_a" and row.dtype == np.float32
        assert np.array_equal(row, np.asarray(values, dtype=np.float32))
    # integers in the array, or the fields in another order: decoded the ordinary way
    assert note_vector(bson.encode({"note_id": "n", "embedding": [1, 0.5]}))[1].tolist() == [
        1.0,
        0.5,
    ]
    assert note_vector(bson.encode({"embedding": [0.25], "note_id": "n"}))[0] == "n"
    assert note_vector(bson.encode({"note_id": "n", "embedding": []})) is None
