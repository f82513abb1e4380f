"""The searchable part of the vector index: one immutable, memory-mapped segment per
embedding dimension, saved under ``var/``.

A segment holds the normalised float32 vectors of every note of one dimension at the time
it was built (``vectors.npy``), their note ids and sections, and, from ``exact_below`` rows
on, one sign bit per coordinate (``codes.npy``, 48 bytes for a 384-d vector, a 32nd of the
float32 bytes). The float32 vectors are opened memory-mapped: every process that serves
searches maps the same pages, so a second web worker costs no second copy, and a process
that starts opens the segment in milliseconds instead of reading every note.

Search: below ``exact_below`` rows, the exact scan (a matrix-vector product). From there
on, faiss's exact Hamming scan over the sign codes (``IndexBinaryFlat``) proposes
``candidates`` rows and each is re-scored exactly from the float32 vectors, so the scores
are exact cosines and only the ranking is approximate (recall@10 against the exact scan is
asserted in the tests on real MiniLM embeddings). A section filter or masked rows that
leave too few candidates fall back to the exact scan of the rows that may match: never
fewer hits than the exact scan would give.

Why sign codes rather than an HNSW graph: measured on one core of this machine (load
average 10-12) at 30k 384-d clustered vectors, usearch's int8 HNSW took 72 s to build and
8.9 ms a query (recall 0.99 with re-scoring); faiss's binary scan + re-scoring of 200
candidates 0.75 ms (recall 0.982 on those hard synthetic clusters; see the tests for real
text), and needs no build at all, so folding changes in is as cheap as writing the file.
The exact scan took 20 ms a query at that load. ``bench/search_and_dedup.py`` has the
figures at 100k and 1M.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

EXACT_BELOW = 20_000  # rows; below this the exact scan is about as fast as the codes
CANDIDATES = 512  # rows re-scored exactly per query (at least 20 per hit asked for)


def normalise(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms


@dataclass
class Segment:
    """The vectors of one dimension as of one build. Never changed once built."""

    dim: int
    ids: np.ndarray  # note ids, dtype str
    sections: np.ndarray  # dtype str ("" for none)
    vectors: np.ndarray  # (n, dim) float32, unit rows; usually a read-only memmap
    codes: Any = None  # faiss IndexBinaryFlat over the sign codes, from exact_below rows on
    path: Path | None = None

    def __len__(self) -> int:
        return int(self.ids.shape[0])

    def rows_of(self) -> dict[str, int]:
        return {str(note_id): row for row, note_id in enumerate(self.ids.tolist())}

    def search(
        self, query: np.ndarray, k: int, allowed: np.ndarray | None, candidates: int
    ) -> list[tuple[int, float]]:
        """``(row, cosine)`` of the best ``k`` rows where ``allowed`` (a boolean mask or
        None for all). ``query`` is a unit vector."""
        n = len(self)
        if n == 0 or k <= 0:
            return []
        if self.codes is not None and (allowed is None or allowed.sum() > n // 2):
            found = self._candidates(query, max(candidates, 20 * k))
            if allowed is not None:
                found = found[allowed[found]]
            if len(found) >= k:
                scores = self.vectors[found] @ query
                order = np.argsort(-scores, kind="stable")[:k]
                return [(int(found[i]), float(scores[i])) for i in order]
        rows = np.arange(n) if allowed is None else np.flatnonzero(allowed)
        if len(rows) == 0:
            return []
        scores = (self.vectors @ query) if allowed is None else (self.vectors[rows] @ query)
        k = min(k, len(rows))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(int(rows[i]), float(scores[i])) for i in top]

    def _candidates(self, query: np.ndarray, count: int) -> np.ndarray:
        code = np.packbits(query > 0)[None, :]
        _, rows = self.codes.search(code, min(count, len(self)))
        found = np.asarray(rows[0], dtype=np.int64)
        return np.sort(found[found >= 0])  # in file order: the gather reads pages in turn


def build_segment(
    dim: int,
    ids: list[str],
    sections: list[str],
    vectors: np.ndarray,
    directory: Path | None,
    *,
    exact_below: int = EXACT_BELOW,
) -> Segment:
    """A new segment from unit rows; saved under ``directory`` (and re-opened
    memory-mapped) when one is given, else kept in memory."""
    vectors = np.ascontiguousarray(vectors, dtype=np.float32).reshape(len(ids), dim)
    id_array = np.asarray(ids, dtype=str)
    section_array = np.asarray(sections, dtype=str)
    codes = sign_codes(vectors) if len(ids) >= exact_below else None
    if directory is None:
        return Segment(dim, id_array, section_array, vectors, _code_index(dim, codes))
    path = directory / f"d{dim}-{uuid.uuid4().hex[:12]}"
    path.mkdir(parents=True)
    np.save(path / "vectors.npy", vectors)
    np.save(path / "ids.npy", id_array)
    np.save(path / "sections.npy", section_array)
    if codes is not None:
        np.save(path / "codes.npy", codes)
    (path / "segment.json").write_text(json.dumps({"dim": dim, "rows": len(ids)}))
    return open_segment(path)


def sign_codes(vectors: np.ndarray) -> np.ndarray:
    """One bit per coordinate (set where it is positive), packed: 48 bytes for 384-d."""
    return np.packbits(np.asarray(vectors) > 0, axis=1)


def _code_index(dim: int, codes: np.ndarray | None) -> Any:
    if codes is None:
        return None
    import faiss

    index = faiss.IndexBinaryFlat(codes.shape[1] * 8)
    if len(codes):
        index.add(np.ascontiguousarray(codes))
    return index


def open_segment(path: Path) -> Segment:
    """A saved segment, memory-mapped (raises OSError/ValueError when it is incomplete)."""
    meta = json.loads((path / "segment.json").read_text())
    vectors = np.load(path / "vectors.npy", mmap_mode="r")
    ids = np.load(path / "ids.npy")
    sections = np.load(path / "sections.npy")
    codes = np.load(path / "codes.npy") if (path / "codes.npy").exists() else None
    if vectors.shape != (meta["rows"], meta["dim"]) or len(ids) != meta["rows"]:
        raise ValueError(f"segment {path} is incomplete")
    return Segment(
        int(meta["dim"]), ids, sections, vectors, _code_index(int(meta["dim"]), codes), path
    )
