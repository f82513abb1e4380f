"""The searchable part of the vector index: one immutable, memory-mapped segment per
embedding dimension, saved under ``var/``.

A segment holds the normalised float32 vectors of every note of one dimension at the time
it was built (``vectors.npy``), their note ids and sections, and, from ``exact_below`` rows
on, an inverted file (IVF): ``4 * sqrt(n)`` centroids, or ``n / 100`` from 160k rows on
(10,000 at 1M), found by spherical k-means on a sample (``centroids.npy``), with the rows
stored grouped by their nearest centroid (``offsets.npy``: list ``i`` is rows
``offsets[i]:offsets[i + 1]``). The float32 vectors
are opened memory-mapped: every process that serves searches maps the same pages, so a
second web worker costs no second copy, and a process that starts opens the segment in
milliseconds instead of reading every note.

Search: below ``exact_below`` rows, the exact scan (a matrix-vector product). From there
on, the query is compared with the centroids and the ``MIN_PROBES`` nearest lists are
scanned exactly; that gives a k-th best cosine, and then (up to ``PROBES`` lists in all)
every other list is scanned whose centroid scores at least that cosine minus
``PROBE_MARGIN``. The lists are contiguous slices of the memory-mapped vectors, so the
scores are exact cosines and only which rows get compared is approximate. The rule adapts
to the query: a query with close neighbours (a high k-th cosine) stops at about the
nearest lists (clustered vectors at 100k: 8-10 lists, 0.13 ms p50 instead of 0.57 ms for
the 64-128 lists scanned before, recall@10 0.9997 both; at 1M 0.52 ms p50 / 0.70 ms p95,
recall@10 0.998, where the centroids' scoring is most of it), one whose 10th neighbour is far
(held-out MiniLM sentences: 0.4-0.5 cosines) scans more (22k sentences: recall@10 0.996
at 0.6 ms p50 where the fixed 64-128 lists gave 0.973 at 0.4 ms; on this machine at load
9-10). ``bench/search_libs.py`` measures it beside hnswlib and usearch; recall@10 against
the exact scan is asserted in the tests on real MiniLM embeddings. A section filter or
masked rows that leave too few candidates fall back to the exact scan of the rows that
may match: never fewer hits than the exact scan would give.

Why an IVF over the float32 rows, measured on this machine (2 cores shared, load 6-10):

- the previous stage, faiss's exact Hamming scan over one sign bit per coordinate
  (``IndexBinaryFlat``) with 512 rows re-scored, took 32 ms p50 at 1M: the scan of every
  code is linear in n and dominated the time;
- usearch's int8 HNSW took 72 s to build 30k vectors (so hours at 1M here) and 8.9 ms a
  query;
- the IVF reads a few lists (at least 8; 100 rows each at 1M) plus the centroids, each a
  contiguous slice, so it stays memory-mapped and shared, needs no second copy of the
  vectors, and a fold of new rows into it only assigns them to the existing centroids.
  Its build is a k-means on ``16 * nlist`` sampled rows and one assignment pass (faiss).
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from qqweb.lib.vectors import dot

# Rows from which a segment gets an inverted file (lists) instead of the exact scan: below
# it the exact scan is about as fast as the lists (docs/scale-and-benchmarks.md, "The
# vector index"); the app's index reads it when a process opens its index.
EXACT_BELOW = 20_000
CANDIDATES = 512  # kept for callers; the IVF scans whole lists instead
MIN_PROBES = 8  # the nearest lists, always scanned
PROBES = 384  # at most this many lists scanned per query
PROBE_MARGIN = 0.33  # then every list whose centroid scores above the k-th best cosine - this
SAMPLE_PER_LIST = 16  # k-means training rows per list


@dataclass
class Lists:
    """The inverted file of a segment: rows ``offsets[i]:offsets[i + 1]`` are nearest to
    ``centroids[i]``."""

    centroids: np.ndarray  # (nlist, dim) float32, unit rows
    offsets: np.ndarray  # (nlist + 1,) int64

    def of_rows(self, rows: np.ndarray) -> np.ndarray:
        """The list of each of ``rows``."""
        return np.searchsorted(self.offsets, rows, side="right").astype(np.int64) - 1

    def nearest(self, query: np.ndarray, probes: int) -> tuple[np.ndarray, np.ndarray]:
        """The ``probes`` lists whose centroids score highest for ``query``, best first,
        and those scores."""
        scores = dot(self.centroids, query)
        probes = min(probes, len(scores))
        nearest = np.argpartition(-scores, probes - 1)[:probes]
        nearest = nearest[np.argsort(-scores[nearest], kind="stable")]
        return nearest, scores[nearest]

    def ranges(self, lists: np.ndarray) -> list[tuple[int, int]]:
        """Row ranges of ``lists``, in file order, adjacent ones merged."""
        lists = np.sort(lists)
        out: list[tuple[int, int]] = []
        for start, stop in zip(
            self.offsets[lists].tolist(), self.offsets[lists + 1].tolist(), strict=True
        ):
            if stop == start:
                continue
            if out and out[-1][1] == start:
                out[-1] = (out[-1][0], stop)
            else:
                out.append((start, stop))
        return out


@dataclass
class Segment:
    """The vectors of one dimension as of one build. Never changed once built."""

    dim: int
    ids: np.ndarray  # note ids, dtype str
    sections: np.ndarray  # dtype str ("" for none)
    vectors: np.ndarray  # (n, dim) float32, unit rows; usually a read-only memmap
    lists: Lists | None = None  # the inverted file, from exact_below rows on
    path: Path | None = None

    def __post_init__(self) -> None:
        # the same pages as a plain array: slicing a np.memmap costs 30-40 us a slice
        self._rows = self.vectors.view(np.ndarray)

    def __len__(self) -> int:
        return int(self.ids.shape[0])

    def rows_of(self) -> dict[str, int]:
        return {str(note_id): row for row, note_id in enumerate(self.ids.tolist())}

    def search(
        self, query: np.ndarray, k: int, allowed: np.ndarray | None, candidates: int = 0
    ) -> list[tuple[int, float]]:
        """``(row, cosine)`` of the best ``k`` rows where ``allowed`` (a boolean mask or
        None for all). ``query`` is a unit vector."""
        n = len(self)
        if n == 0 or k <= 0:
            return []
        if self.lists is not None and (allowed is None or np.count_nonzero(allowed) > n // 2):
            lists, near = self.lists.nearest(query, PROBES)
            rows, scores = self._scan(self.lists.ranges(lists[:MIN_PROBES]), query, allowed)
            kth = np.partition(scores, len(scores) - k)[len(scores) - k] if len(rows) >= k else -2
            more = lists[MIN_PROBES:][near[MIN_PROBES:] >= kth - PROBE_MARGIN]
            if len(more):
                extra, extra_scores = self._scan(self.lists.ranges(more), query, allowed)
                rows = np.concatenate([rows, extra])
                scores = np.concatenate([scores, extra_scores])
            if len(rows) >= k:
                return _best(rows, scores, k)
        rows = np.arange(n) if allowed is None else np.flatnonzero(allowed)
        if len(rows) == 0:
            return []
        if allowed is None or len(rows) > n // 2:  # scoring every row beats copying most
            scores = dot(self._rows, query)[rows]
        else:
            scores = dot(self._rows[rows], query)
        return _best(rows, scores, min(k, len(rows)))

    def _scan(
        self, ranges: list[tuple[int, int]], query: np.ndarray, allowed: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Rows of ``ranges`` (where ``allowed``) and their exact cosines with ``query``."""
        if not ranges:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        if len(ranges) == 1:
            (a, b) = ranges[0]
            rows, scores = np.arange(a, b), dot(self._rows[a:b], query)
        else:
            rows = np.concatenate([np.arange(a, b) for a, b in ranges])
            scores = np.concatenate([dot(self._rows[a:b], query) for a, b in ranges])
        if allowed is not None:
            keep = allowed[rows]
            rows, scores = rows[keep], scores[keep]
        return rows, scores


def _best(rows: np.ndarray, scores: np.ndarray, k: int) -> list[tuple[int, float]]:
    top = np.argpartition(-scores, k - 1)[:k]
    top = top[np.argsort(-scores[top], kind="stable")]
    return [(int(rows[i]), float(scores[i])) for i in top]


def build_segment(
    dim: int,
    ids: list[str],
    sections: list[str],
    vectors: np.ndarray,
    directory: Path | None,
    *,
    exact_below: int = EXACT_BELOW,
    centroids: np.ndarray | None = None,
    known: np.ndarray | None = None,
) -> Segment:
    """A new segment from unit rows; saved under ``directory`` (and re-opened
    memory-mapped) when one is given, else kept in memory. From ``exact_below`` rows on,
    the rows are grouped into lists: around ``centroids`` when given (a fold keeps the
    old ones while the size stays within 4x of what they were trained on; ``known`` then
    gives each row's list, -1 for rows to assign), else around new ones."""
    vectors = np.ascontiguousarray(vectors, dtype=np.float32).reshape(len(ids), dim)
    id_array = np.asarray(ids, dtype=str)
    section_array = np.asarray(sections, dtype=str)
    lists = None
    order = np.arange(len(ids))
    if len(ids) and len(ids) >= exact_below:
        target = _list_count(len(ids))
        if centroids is None or not target / 2 <= len(centroids) <= 2 * target:
            centroids, known = train_centroids(vectors), None
        if known is None:
            assign = nearest_centroid(vectors, centroids)
        else:  # a fold: the old rows keep their lists, the new ones are assigned
            assign = np.asarray(known, dtype=np.int64).copy()
            if len(assign) != len(ids):  # a short file would be written and fail to open
                raise ValueError(f"lists known for {len(assign)} rows of {len(ids)}")
            new = np.flatnonzero(assign < 0)
            if len(new):
                assign[new] = nearest_centroid(vectors[new], centroids)
        order = np.argsort(assign, kind="stable")
        id_array, section_array = id_array[order], section_array[order]
        offsets = np.searchsorted(assign[order], np.arange(len(centroids) + 1)).astype(np.int64)
        lists = Lists(np.ascontiguousarray(centroids, dtype=np.float32), offsets)
    if directory is None:
        return Segment(
            dim, id_array, section_array, vectors if lists is None else vectors[order], lists
        )
    path = directory / f"d{dim}-{uuid.uuid4().hex[:12]}"
    path.mkdir(parents=True)
    _save_rows(path / "vectors.npy", vectors, order)
    np.save(path / "ids.npy", id_array)
    np.save(path / "sections.npy", section_array)
    if lists is not None:
        np.save(path / "centroids.npy", lists.centroids)
        np.save(path / "offsets.npy", lists.offsets)
    (path / "segment.json").write_text(json.dumps({"dim": dim, "rows": len(ids)}))
    return open_segment(path)


def _save_rows(path: Path, vectors: np.ndarray, order: np.ndarray) -> None:
    """``vectors[order]`` written to ``path`` as .npy a block at a time: no second copy of
    the rows in memory (1.5 GB at 1M)."""
    header = {"descr": "<f4", "fortran_order": False, "shape": tuple(vectors.shape)}
    with open(path, "wb") as out:
        np.lib.format.write_array_header_1_0(out, header)
        for start in range(0, len(order), 65_536):
            block = np.ascontiguousarray(vectors[order[start : start + 65_536]], dtype="<f4")
            out.write(block.tobytes())


def _list_count(n: int) -> int:
    """``4 * sqrt(n)`` lists, or ``n / 100`` from 160k rows on (10,000 at 1M)."""
    return max(1, int(max(4 * np.sqrt(n), n / 100)))


def train_centroids(vectors: np.ndarray, seed: int = 1) -> np.ndarray:
    """``4 * sqrt(n)`` unit centroids by spherical k-means (faiss) on at most
    ``SAMPLE_PER_LIST`` sampled rows per centroid."""
    import faiss

    n, dim = vectors.shape
    count = min(_list_count(n), n)
    rng = np.random.default_rng(seed)
    sample = vectors[np.sort(rng.choice(n, min(n, count * SAMPLE_PER_LIST), replace=False))]
    kmeans = faiss.Kmeans(
        dim, count, niter=10, spherical=True, seed=seed, max_points_per_centroid=10**9
    )
    kmeans.cp.min_points_per_centroid = 1  # few rows per list at small sizes: no warning
    kmeans.train(np.ascontiguousarray(sample, dtype=np.float32))
    return np.asarray(kmeans.centroids, dtype=np.float32)


def nearest_centroid(vectors: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    """The list of each row (the centroid of the largest inner product)."""
    import faiss

    index = faiss.IndexFlatIP(centroids.shape[1])
    index.add(np.ascontiguousarray(centroids, dtype=np.float32))
    out = np.empty(len(vectors), dtype=np.int64)
    for start in range(0, len(vectors), 65_536):
        block = np.ascontiguousarray(vectors[start : start + 65_536], dtype=np.float32)
        _, nearest = index.search(block, 1)
        out[start : start + len(block)] = nearest[:, 0]
    return out


def open_segment(path: Path) -> Segment:
    """A saved segment, memory-mapped (raises OSError/ValueError when it is incomplete).
    A segment saved before the lists existed (sign codes) is scanned exactly until the
    next fold or rebuild."""
    meta = json.loads((path / "segment.json").read_text())
    vectors = np.load(path / "vectors.npy", mmap_mode="r")
    ids = np.load(path / "ids.npy", mmap_mode="r")  # shared by every process, like the
    sections = np.load(path / "sections.npy", mmap_mode="r")  # vectors (140 MB at 1M)
    lists = None
    if (path / "offsets.npy").exists():
        lists = Lists(np.load(path / "centroids.npy"), np.load(path / "offsets.npy"))
        if lists.offsets[-1] != meta["rows"]:
            raise ValueError(f"segment {path} is incomplete")
    if vectors.shape != (meta["rows"], meta["dim"]) or len(ids) != meta["rows"]:
        raise ValueError(f"segment {path} is incomplete")
    return Segment(int(meta["dim"]), ids, sections, vectors, lists, path)
