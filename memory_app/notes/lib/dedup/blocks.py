"""The full dedup scan cut into blocks any worker can compute: pure numpy (and faiss's
k-means for the pruned plan), no I/O.

A plan cuts the work into blocks of about equal cost; a block's pairs depend only on the
plan and the (unit, float32) matrix, so a block computed twice gives the same pairs and
the blocks' pairs, put together, are every pair once, as ``(i, j)`` with ``i < j``.

- **exact** (below ``EXACT_BELOW`` rows): block ``k`` is a range of rows compared with
  every row after it, in tiles of ``row_block x col_block`` (8 MB of float32). Exact:
  every pair above the threshold, whatever the vectors.
- **changed** (the incremental scan): block ``k`` is a range of the rows changed since
  the last complete scan, each compared with every row, exactly.
- **pruned** (from ``EXACT_BELOW`` rows on): k-means cells (``cells ~ probes *
  sqrt(n / 2)``, which balances the cost of assigning every row against the cost of the
  pairs), each row put in its ``probes`` nearest cells, and only rows that share a cell
  compared, exactly (the scores are exact cosines; only a pair whose notes share none of
  their nearest cells is missed). A pair sharing several cells is kept by the lowest one.
  Its cost is about ``probes^2 / cells`` of the exact scan's (0.3% at 1M notes). Recall
  against the exact scan is asserted in the tests (planted pairs, real MiniLM
  embeddings) and measured in ``bench/scale.py``.

Why the exact scan stops at 20k (``QQ_DEDUP_EXACT_BELOW``): it is bound by the matrix
product (about 770 flops a pair); one core here does about 40 GFLOPS, so 100k notes (5e9
pairs) take about 100 s of arithmetic whatever the code, and 1M a hundred times that.
Measured on one core (``OMP_NUM_THREADS=1``, load 5-8, the machine shared): 10k exact
0.9-1.6 s against 1.8 s pruned; 30k exact 21.9 s against 5.2 s pruned; 100k exact 118 s
against 7.8 s pruned. The pruned scan found every pair the exact one did on the bench's
clustered vectors at 10k, 30k and 100k (recall 1.0 of 50, 149 and 500 pairs); on the
tests' real MiniLM embeddings it finds 0.9992 of them (1 of 1,303 missed). The
thresholding is ``flatnonzero`` over the flat tile (0.3 ns a score; ``nonzero`` on 2-D
was 3.8 ns).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

EXACT_BELOW = 20_000  # rows; from here on the pruned plan (QQ_DEDUP_EXACT_BELOW)
PAIRS_PER_BLOCK = 100_000_000  # scores per exact block: about 1-2 s on one core here
PROBES = 4  # nearest cells each row is put in (pruned plan; 3 left 2% of planted pairs at 1M)
TRAIN_ROWS = 20  # k-means training rows per cell, at most
NITER = 6  # k-means iterations (recall on real embeddings as with 64 rows, 10 iterations)


Pairs = tuple[np.ndarray, np.ndarray, np.ndarray]


def no_pairs() -> Pairs:
    empty = np.zeros(0, dtype=np.int64)
    return empty, empty, np.zeros(0, dtype=np.float32)


def join_pairs(parts: list[Pairs]) -> Pairs:
    parts = [p for p in parts if len(p[0])]
    if not parts:
        return no_pairs()
    return (
        np.concatenate([p[0] for p in parts]).astype(np.int64),
        np.concatenate([p[1] for p in parts]).astype(np.int64),
        np.concatenate([p[2] for p in parts]).astype(np.float32),
    )


def balanced_cuts(costs: np.ndarray, per_block: float) -> list[tuple[int, int]]:
    """``[start, stop)`` ranges over ``costs`` of about ``per_block`` each (at least one)."""
    n = len(costs)
    if n == 0:
        return []
    total = float(np.sum(costs, dtype=np.float64))
    blocks = max(1, min(n, math.ceil(total / max(per_block, 1.0))))
    cumulative = np.cumsum(costs, dtype=np.float64)
    targets = total * np.arange(1, blocks) / blocks
    inner = np.searchsorted(cumulative, targets, side="left") + 1
    edges = np.unique(np.concatenate([[0], np.clip(inner, 1, n - 1), [n]]))
    return [(int(a), int(b)) for a, b in itertools.pairwise(edges) if b > a]


# --- exact ------------------------------------------------------------------------------


def exact_blocks(n: int, per_block: float = PAIRS_PER_BLOCK) -> list[tuple[int, int]]:
    """Row ranges of about ``per_block`` pairs each (row ``r`` has ``n - 1 - r``)."""
    return balanced_cuts(n - 1 - np.arange(n, dtype=np.float64), per_block)


def exact_block_pairs(
    matrix: np.ndarray,
    start: int,
    stop: int,
    threshold: float,
    *,
    row_block: int = 1024,
    col_block: int = 2048,
) -> Pairs:
    """Pairs ``(i, j)``, ``start <= i < stop``, ``i < j``, with cosine >= threshold, over
    unit float32 rows (a memory-mapped file works: read a tile at a time)."""
    parts: list[Pairs] = []
    for a in range(start, stop, row_block):
        b = min(stop, a + row_block)
        left = np.ascontiguousarray(matrix[a:b], dtype=np.float32)
        for rr, j, sims in _tile_hits(left, matrix, a, col_block, threshold):
            i = rr + a
            keep = j > i
            parts.append((i[keep], j[keep], sims[keep]))
    return join_pairs(parts)


def _tile_hits(
    left: np.ndarray, right: np.ndarray, first: int, col_block: int, threshold: float
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """``left`` against the rows ``first:`` of ``right``, ``col_block`` rows at a time (a
    memory-mapped ``right`` is read a tile at a time): for each tile with a score >=
    ``threshold``, the hits' rows in ``left``, their rows in ``right`` and their scores.
    Thresholded on the flat tile (``flatnonzero`` is about 10x faster than 2-D
    ``nonzero`` here)."""
    n = int(right.shape[0])
    for c0 in range(first, n, col_block):
        c1 = min(n, c0 + col_block)
        sims = left @ np.asarray(right[c0:c1], dtype=np.float32).T
        flat = np.flatnonzero(sims.ravel() >= threshold)
        if len(flat):
            rr, cc = np.divmod(flat, c1 - c0)
            yield rr, cc + c0, sims[rr, cc]


# --- changed rows (the incremental scan) ------------------------------------------------


def changed_blocks(
    n: int, changed: int, per_block: float = PAIRS_PER_BLOCK
) -> list[tuple[int, int]]:
    """Ranges over the ``changed`` rows' list of about ``per_block`` scores each (a changed
    row is compared with all ``n`` rows)."""
    return balanced_cuts(np.full(changed, float(n)), per_block)


def changed_block_pairs(
    matrix: np.ndarray,
    changed: np.ndarray,
    start: int,
    stop: int,
    threshold: float,
    *,
    row_block: int = 1024,
    col_block: int = 8192,
) -> Pairs:
    """Pairs of the changed rows ``changed[start:stop]`` (sorted row indices) with every row,
    cosine >= threshold, as ``(i, j)`` with ``i < j``. A pair of two changed rows is kept
    by the block of its lower row only, so the blocks of one plan never double a pair."""
    n = int(matrix.shape[0])
    is_changed = np.zeros(n, dtype=bool)
    is_changed[np.asarray(changed, dtype=np.int64)] = True
    rows_all = np.asarray(changed[start:stop], dtype=np.int64)
    parts: list[Pairs] = []
    for r0 in range(0, len(rows_all), row_block):
        rows = rows_all[r0 : r0 + row_block]
        left = np.ascontiguousarray(matrix[rows], dtype=np.float32)
        for rr, j, sims in _tile_hits(left, matrix, 0, col_block, threshold):
            i = rows[rr]
            keep = (i != j) & (~is_changed[j] | (i < j))
            lo, hi = np.minimum(i, j)[keep], np.maximum(i, j)[keep]
            parts.append((lo, hi, sims[keep]))
    return join_pairs(parts)


def changed_pairs_on_base(
    base: np.ndarray,
    live: np.ndarray,
    fresh: np.ndarray,
    changed: np.ndarray,
    start: int,
    stop: int,
    threshold: float,
    *,
    row_block: int = 1024,
    col_block: int = 8192,
) -> Pairs:
    """``changed_block_pairs`` over two row sets: ``base`` (the vector index's saved unit
    rows, memory-mapped; only the rows where ``live`` count) followed by ``fresh`` (the
    notes read from MongoDB since: row ``len(base) + k`` is ``fresh[k]``). ``changed``
    holds indices into that joined order; a changed row never points at a dead base row."""
    nb = int(base.shape[0])
    n = nb + int(fresh.shape[0])
    alive = np.concatenate([np.asarray(live, dtype=bool), np.ones(len(fresh), dtype=bool)])
    is_changed = np.zeros(n, dtype=bool)
    is_changed[np.asarray(changed, dtype=np.int64)] = True
    rows_all = np.asarray(changed[start:stop], dtype=np.int64)
    parts: list[Pairs] = []
    for r0 in range(0, len(rows_all), row_block):
        rows = rows_all[r0 : r0 + row_block]
        left = np.empty((len(rows), int(base.shape[1] if nb else fresh.shape[1])), np.float32)
        in_base = rows < nb
        if in_base.any():
            left[in_base] = base[rows[in_base]]
        if not in_base.all():
            left[~in_base] = fresh[rows[~in_base] - nb]
        for offset, part in ((0, base), (nb, fresh)):
            for rr, cols, sims in _tile_hits(left, part, 0, col_block, threshold):
                i, j = rows[rr], cols + offset
                keep = (i != j) & alive[j] & (~is_changed[j] | (i < j))
                lo, hi = np.minimum(i, j)[keep], np.maximum(i, j)[keep]
                parts.append((lo, hi, sims[keep]))
    return join_pairs(parts)


# --- pruned -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Cells:
    """Each row's ``probes`` nearest k-means cells (``assign``, (n, probes) int32) and the
    rows of each cell (``members[offsets[c]:offsets[c + 1]]``, ascending)."""

    assign: np.ndarray
    members: np.ndarray
    offsets: np.ndarray

    @property
    def count(self) -> int:
        return len(self.offsets) - 1

    def rows(self, cell: int) -> np.ndarray:
        return self.members[self.offsets[cell] : self.offsets[cell + 1]]


def cell_count(n: int, probes: int = PROBES) -> int:
    return max(1, min(n // 8 or 1, math.ceil(probes * math.sqrt(n / 2))))


def cells_plan(
    matrix: np.ndarray,
    *,
    cells: int | None = None,
    probes: int = PROBES,
    seed: int = 0,
    chunk: int = 65_536,
) -> Cells:
    """k-means (faiss, inner product on unit rows) on a sample of at most ``TRAIN_ROWS``
    rows a cell, then every row's ``probes`` nearest cells, ``chunk`` rows at a time."""
    import faiss

    n, dim = int(matrix.shape[0]), int(matrix.shape[1])
    k = cell_count(n, probes) if cells is None else max(1, min(cells, n))
    probes = min(probes, k)
    rng = np.random.default_rng(seed)
    sample_size = min(n, k * TRAIN_ROWS)
    picked = np.sort(rng.choice(n, size=sample_size, replace=False))
    sample = np.ascontiguousarray(matrix[picked], dtype=np.float32)
    kmeans = faiss.Kmeans(dim, k, niter=NITER, seed=seed, spherical=True, verbose=False)
    kmeans.cp.min_points_per_centroid = 1
    kmeans.cp.max_points_per_centroid = TRAIN_ROWS
    kmeans.train(sample)
    del sample
    quantizer = faiss.IndexFlatIP(dim)
    centroids = kmeans.centroids
    assert centroids is not None  # trained
    quantizer.add(centroids)
    assign = np.empty((n, probes), dtype=np.int32)
    for c0 in range(0, n, chunk):
        rows = np.ascontiguousarray(matrix[c0 : c0 + chunk], dtype=np.float32)
        assign[c0 : c0 + len(rows)] = quantizer.search(rows, probes)[1]
    flat = assign.ravel()
    order = np.argsort(flat, kind="stable")  # rows ascending within each cell
    members = (order // probes).astype(np.int64)
    offsets = np.searchsorted(flat[order], np.arange(k + 1)).astype(np.int64)
    return Cells(assign=assign, members=members, offsets=offsets)


def cell_blocks(plan: Cells, per_block: float = PAIRS_PER_BLOCK) -> list[tuple[int, int]]:
    """Cell ranges of about ``per_block`` pairs each."""
    sizes = np.diff(plan.offsets).astype(np.float64)
    return balanced_cuts(sizes * (sizes - 1) / 2 + 1, per_block)


def cell_block_pairs(
    matrix: np.ndarray, plan: Cells, start: int, stop: int, threshold: float
) -> Pairs:
    """The pairs of cells ``start..stop-1``: rows sharing a cell compared exactly, each pair
    kept only in the lowest cell its two rows share (so once over all blocks)."""
    parts: list[Pairs] = []
    for cell in range(start, stop):
        rows = plan.rows(cell)
        if len(rows) < 2:
            continue
        block = np.asarray(matrix[rows], dtype=np.float32)
        sims = block @ block.T
        flat = np.flatnonzero(sims.ravel() >= threshold)
        if not len(flat):
            continue
        rr, cc = np.divmod(flat, len(rows))
        up = cc > rr
        rr, cc = rr[up], cc[up]
        i, j = rows[rr], rows[cc]
        a, b = plan.assign[i], plan.assign[j]
        shared = (a[:, :, None] == b[:, None, :]).any(axis=2)
        lowest = np.where(shared, a, np.iinfo(np.int32).max).min(axis=1)
        keep = lowest == cell
        parts.append((i[keep], j[keep], sims[rr[keep], cc[keep]]))
    return join_pairs(parts)
