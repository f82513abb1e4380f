"""Dedup in bounded tiles, and the incremental scan of changed notes only."""

import numpy as np

from memory_app.notes.lib.dedup.maths import similar_pairs_tiled
from qqweb.lib.vectors import similar_pairs


def planted(n=700, dim=32, seed=5):
    rng = np.random.default_rng(seed)
    vectors = rng.normal(size=(n, dim)).astype(np.float32)
    twins = rng.choice(n, size=60, replace=False)
    vectors[twins[:30]] = vectors[twins[30:]] + rng.normal(scale=0.05, size=(30, dim))
    return vectors


def as_set(found):
    i, j, _ = found
    return set(zip(i.tolist(), j.tolist(), strict=True))


def test_tiles_find_exactly_the_pairs_the_whole_matrix_finds():
    vectors = planted()
    expected = as_set(similar_pairs(vectors, 0.85))
    assert len(expected) >= 30
    tiled = similar_pairs_tiled(vectors, 0.85, row_block=64, col_block=100)
    assert as_set(tiled) == expected
    assert len(tiled[0]) == len(expected)  # each pair once


def test_the_incremental_scan_finds_every_pair_of_a_changed_note_once():
    vectors = planted()
    everything = as_set(similar_pairs(vectors, 0.85))
    changed = np.asarray(sorted({i for i, _ in everything} | {5, 6, 650}))[::2]
    found = similar_pairs_tiled(vectors, 0.85, rows=changed, row_block=16, col_block=128)
    wanted = {(i, j) for i, j in everything if i in set(changed) or j in set(changed)}
    assert as_set(found) == wanted
    assert len(found[0]) == len(wanted)


def test_scores_are_the_cosines_of_the_pairs():
    vectors = planted()
    i, j, s = similar_pairs_tiled(vectors, 0.85, row_block=50, col_block=70)
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    assert np.allclose(s, np.sum(unit[i] * unit[j], axis=1), atol=1e-5)
