"""The vector index's questions: whether it holds a note, how many vectors of each
dimension, the nearest notes to a query (the saved segments, minus the rows changed since,
plus the in-memory delta), and the seed's ``search_similar`` shape with the documents
fetched by id, every vector it holds (the full dedup scan's input); and what a question
gets while the index is still loading (:class:`IndexWarming`).
:class:`~.index.VectorIndex` answers through these."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from memory_app.notes.lib.replica.core import IndexCore
from memory_app.notes.lib.replica.segments import Segment
from qqweb.lib.errors import DimensionMismatch, StoreError
from qqweb.lib.vectors import dot, normalise


@dataclass
class SearchResult:
    hits: list[tuple[str, float]]
    compared: int
    skipped_other_dimensions: dict[int, int]


def holds(index: IndexCore, note_id: str) -> bool:
    """Whether ``note_id`` has a vector in the index (as of the last catch-up)."""
    index._wait_ready()
    with index._lock:
        if note_id in index._delta:
            return True
        where = index._snapshot.row_of(note_id)
        return where is not None and not index._masked[where[0]][where[1]]


def dimensions(index: IndexCore) -> dict[int, int]:
    index._wait_ready()
    with index._lock:
        counts = {d: len(m) - int(np.count_nonzero(m)) for d, m in index._masked.items()}
        for dim, (ids, _, _) in _delta_groups(index).items():  # cached between changes
            counts[dim] = counts.get(dim, 0) + len(ids)
    return {d: c for d, c in counts.items() if c}


def delta_of(index: IndexCore, dim: int) -> tuple[list[str], np.ndarray, np.ndarray]:
    rows = np.zeros((0, dim), np.float32)
    empty: tuple[list[str], np.ndarray, np.ndarray] = ([], np.zeros(0, dtype=str), rows)
    return _delta_groups(index).get(dim, empty)


def _delta_groups(index: IndexCore) -> dict[int, tuple[list[str], np.ndarray, np.ndarray]]:
    """The delta's note ids, sections and rows by dimension (kept until it changes)."""
    if index._delta_cache is None:
        grouped: dict[int, list[tuple[str, str, np.ndarray]]] = {}
        for note_id, (d, section, row) in index._delta.items():
            grouped.setdefault(d, []).append((note_id, section, row))
        index._delta_cache = {
            d: (
                [g[0] for g in group],
                np.asarray([g[1] for g in group], dtype=str),
                np.vstack([g[2] for g in group]),
            )
            for d, group in grouped.items()
        }
    return index._delta_cache


def search(
    index: IndexCore,
    query: list[float] | np.ndarray,
    *,
    limit: int = 5,
    section: str | None = None,
    min_score: float | None = None,
) -> SearchResult:
    index._wait_ready()
    vector = normalise(np.asarray(query, dtype=np.float32).ravel())
    dim = int(vector.shape[0])
    k = max(int(limit), 0)
    counts = dimensions(index)
    others = {d: c for d, c in counts.items() if d != dim}
    if dim not in counts:
        if others:
            expected = max(others, key=lambda d: others[d])
            raise DimensionMismatch(expected, dim, "the query vector")
        return SearchResult([], 0, {})
    with index._lock:
        hits: list[tuple[str, float]] = []
        segment: Segment | None = index._snapshot.segments.get(dim)
        if segment is not None and len(segment):
            masked = index._masked[dim]
            allowed = None  # every row: the mask is only built when rows are left out
            if section is not None or masked.any():
                allowed = ~masked
                if section is not None:
                    allowed &= segment.sections == section
            for row, score in segment.search(vector, k, allowed):
                hits.append((str(segment.ids[row]), score))
        ids, sections, rows = delta_of(index, dim)
        if ids and k:
            scores = dot(rows, vector)
            if section is not None:
                scores = np.where(sections == section, scores, -np.inf)
            top = np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(ids))
            hits.extend((ids[i], float(scores[i])) for i in top[np.argsort(-scores[top])])
    hits = [h for h in hits if np.isfinite(h[1])]
    hits.sort(key=lambda h: -h[1])
    hits = hits[:k]
    if min_score is not None:
        hits = [(i, s) for i, s in hits if s >= min_score]
    return SearchResult(hits, counts[dim], others)


def search_notes(
    index: IndexCore, query: list[float], *, limit: int = 5, section: str | None = None
) -> list[dict[str, Any]]:
    """The seed's ``search_similar`` shape, documents fetched with one ``$in``."""
    assert index._source is not None
    if index._vector_search_index:
        try:
            return index._source.atlas_vector_search(
                index._vector_search_index, query, limit, section
            )
        except StoreError:
            pass  # this server has no $vectorSearch: use the in-process index
    result = search(index, query, limit=limit, section=section)
    scores = dict(result.hits)
    found = index._source.notes_by_ids(list(scores))
    gone = [i for i in scores if i not in found]
    if gone:  # deleted since the last catch-up: forget them now
        index.notes_changed(gone)
    fields = ("note_id", "content", "section", "importance")
    docs = {i: note.to_document() for i, note in found.items()}  # the values as stored
    return [
        {**{k: docs[i].get(k) for k in fields}, "score": round(s, 6)}
        for i, s in result.hits
        if i in docs
    ]


def rows_by_dimension(index: IndexCore) -> dict[int, tuple[list[str], np.ndarray]]:
    """Every vector the index holds as unit float32 rows, grouped by dimension, as the
    store's ``vectors_by_dimension`` gives them: the live rows of its memory-mapped
    segments (the local snapshot) and its delta. What MongoDB holds as of the index's last
    step; a caller that needs every acknowledged write first asks
    :meth:`VectorIndex.in_step`. The segments never change, so they are copied out of the
    lock, a block at a time (no second whole copy at 1M notes)."""
    index._wait_ready()
    with index._lock:
        segments = dict(index._snapshot.segments)
        live = {d: np.flatnonzero(~m) for d, m in index._masked.items()}
        delta = list(index._delta.items())
    out: dict[int, tuple[list[str], np.ndarray]] = {}
    for dim in sorted(set(segments) | {d for _, (d, _, _) in delta}):
        segment = segments.get(dim)
        keep = live[dim] if segment is not None else np.zeros(0, dtype=np.int64)
        extra = [(note_id, row) for note_id, (d, _, row) in delta if d == dim]
        ids = [] if segment is None else segment.ids[keep].tolist()
        rows = np.empty((len(keep) + len(extra), dim), dtype=np.float32)
        for start in range(0, len(keep), 65_536):
            assert segment is not None  # rows to keep come from a segment
            part = keep[start : start + 65_536]
            rows[start : start + len(part)] = segment.vectors[part]
        for k, (note_id, row) in enumerate(extra):
            ids.append(note_id)
            rows[len(keep) + k] = row
        out[dim] = ([str(i) for i in ids], rows)
    return out
