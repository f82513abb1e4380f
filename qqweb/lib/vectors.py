"""Vector maths every app shares: pure numpy, no I/O, no app.

The notes' vector index and dedup, and the graph's entity search and duplicate
candidates, compare embeddings the same way: rows normalised to unit length, cosines as
dot products. The framework-free libraries may import this module (import-linter allows
``qqweb.lib.vectors`` to them by name)."""

from __future__ import annotations

import numpy as np


def dot(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    """``matrix @ query`` on one core. A threaded BLAS gemv on this shared 2-core machine
    took 23 ms p50 for 16k x 384 rows (55 ms p95 for the 4k centroids at 1M) against 1.4 ms
    for einsum's single-threaded loop: its threads wait for cores other processes hold."""
    return np.einsum("ij,j->i", matrix, query)


def normalise(matrix: np.ndarray) -> np.ndarray:
    """Rows (or one vector) scaled to unit length, as float32; a zero row stays zero."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms


def similar_pairs(
    vectors: np.ndarray, threshold: float, block: int = 1024
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Indices ``(i, j)`` with ``i < j`` and their cosine, for cosine >= threshold, in one
    group of same-dimension vectors: blocked matrix products over normalised float32 rows
    (upper triangle only), so memory stays at ``block x n`` and nothing loops over pairs
    in Python. Exact, not approximate: at 10k notes it takes a fraction of a second on two
    cores."""
    matrix = normalise(vectors)
    n = matrix.shape[0]
    found_i, found_j, found_s = [], [], []
    for start in range(0, n, block):
        stop = min(start + block, n)
        sims = matrix[start:stop] @ matrix[start:].T  # only columns >= start
        rows, cols = np.nonzero(sims >= threshold)
        cols_abs = cols + start
        rows_abs = rows + start
        keep = cols_abs > rows_abs
        found_i.append(rows_abs[keep])
        found_j.append(cols_abs[keep])
        found_s.append(sims[rows[keep], cols[keep]])
    if not found_i:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(0, dtype=np.float32)
    return np.concatenate(found_i), np.concatenate(found_j), np.concatenate(found_s)
