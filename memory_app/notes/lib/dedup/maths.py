"""Near-duplicate maths: pure numpy, no I/O.

``similar_pairs`` (every pair with cosine >= threshold in one group of same-dimension
vectors) is shared with the graph and lives in the kernel, ``qqweb.lib.vectors``;
``similar_pairs_tiled`` is its tiled form over the vector index's segments.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

import numpy as np

from memory_app.notes.lib.domain import Note
from qqweb.lib.vectors import normalise

MERGE_IMPORTANCE_BONUS = 0.05


def similar_pairs_tiled(
    matrix: np.ndarray,
    threshold: float,
    *,
    rows: np.ndarray | None = None,
    row_block: int = 1024,
    col_block: int = 8192,
    unit: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``similar_pairs`` in tiles of ``row_block x col_block`` (32 MB of float32 at the
    defaults, whatever the number of notes), reading ``matrix`` (a memory-mapped segment of
    the vector index works: ``unit`` says its rows are normalised already) a tile at a time.

    With ``rows`` (indices of the notes changed since the last scan) only those rows are
    compared, against every row: the incremental scan. Each pair is reported once, as
    ``(i, j)`` with ``i < j``, whether one or both of its notes changed."""
    n = int(matrix.shape[0])
    wanted = np.arange(n) if rows is None else np.unique(np.asarray(rows, dtype=np.int64))
    changed = np.zeros(n, dtype=bool)
    changed[wanted] = True
    found_i, found_j, found_s = [], [], []

    def tile(a: np.ndarray) -> np.ndarray:
        t = np.asarray(a, dtype=np.float32)
        return t if unit else normalise(t)

    for r0 in range(0, len(wanted), row_block):
        r_idx = wanted[r0 : r0 + row_block]
        left = tile(matrix[r_idx])
        first = int(r_idx[0]) if rows is None else 0  # the full scan: upper triangle only
        for c0 in range(first - first % col_block, n, col_block):
            c1 = min(n, c0 + col_block)
            sims = left @ tile(matrix[c0:c1]).T
            # flatnonzero over the flat tile: 0.3 ns a score, nonzero on 2-D was 3.8 ns
            rr, cc = np.divmod(np.flatnonzero(sims.ravel() >= threshold), c1 - c0)
            i, j = r_idx[rr], cc + c0
            # a pair is kept by the row of its lower index, or, when that note did not
            # change (incremental scan), by its changed higher one
            keep = (i < j) | ((j < i) & ~changed[j])
            lo, hi = np.minimum(i, j)[keep], np.maximum(i, j)[keep]
            found_i.append(lo)
            found_j.append(hi)
            found_s.append(sims[rr[keep], cc[keep]])
    if not found_i:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(0, dtype=np.float32)
    return np.concatenate(found_i), np.concatenate(found_j), np.concatenate(found_s)


def choose_primary(a: Note, b: Note) -> tuple[Note, Note]:
    """The higher-importance note is primary (ties: more accessed, then older)."""

    def key(note: Note) -> tuple[float, int, float]:
        age = -note.created_at.timestamp() if note.created_at is not None else 0.0
        return (float(note.importance), note.access_count, age)

    return (a, b) if key(a) >= key(b) else (b, a)


MergedValue = float | datetime | str


@dataclass(frozen=True)
class MergePlan:
    """What the contract's simple merge writes. :attr:`set_fields` and ``inc_access`` are
    applied to the primary with one targeted update; the secondary is then archived
    with ``archive_reason`` and deleted. ``created_at`` / ``last_accessed`` None: the
    primary's value stays; ``content`` None: the primary keeps its text."""

    primary_id: str
    secondary_id: str
    similarity: float
    importance: float
    decay_rate: float
    inc_access: int
    pushed_source: Mapping[str, Any] | None
    created_at: datetime | None = None
    last_accessed: datetime | None = None
    content: str | None = None

    @property
    def content_changed(self) -> bool:
        return self.content is not None

    @property
    def set_fields(self) -> dict[str, MergedValue]:
        """The primary's ``$set`` (``updated_at`` aside, the store adds it)."""
        fields: dict[str, MergedValue] = {
            "importance": self.importance,
            "decay_rate": self.decay_rate,
        }
        if self.created_at is not None:
            fields["created_at"] = self.created_at
        if self.last_accessed is not None:
            fields["last_accessed"] = self.last_accessed
        if self.content is not None:
            fields["content"] = self.content
        return fields

    @property
    def archive_reason(self) -> str:
        return f"Consolidated with {self.primary_id} (similarity: {self.similarity:.2f})"


def _earliest(x: datetime | None, y: datetime | None) -> datetime | None:
    values = [v for v in (x, y) if v is not None]
    return min(values) if values else None


def _latest(x: datetime | None, y: datetime | None) -> datetime | None:
    values = [v for v in (x, y) if v is not None]
    return max(values) if values else None


def plan_merge(
    primary: Note,
    secondary: Note,
    similarity: float,
    content: str | None = None,
) -> MergePlan:
    text = (content or "").strip()  # a blank text is none: the primary keeps its own
    changed = bool(text) and text != primary.content
    return MergePlan(
        primary_id=primary.note_id,
        secondary_id=secondary.note_id,
        similarity=float(similarity),
        importance=round(min(1.0, float(primary.importance) + MERGE_IMPORTANCE_BONUS), 6),
        decay_rate=min(float(primary.decay_rate or 0.01), float(secondary.decay_rate or 0.01)),
        inc_access=secondary.access_count,
        pushed_source=dict(secondary.source) if secondary.source else None,
        created_at=_earliest(primary.created_at, secondary.created_at),
        last_accessed=_latest(primary.last_accessed, secondary.last_accessed),
        content=text if changed else None,
    )


def plan_supersede(newer: Note, older: Note, similarity: float) -> MergePlan:
    """Keep the newer text (supersede): the newer note survives with its own id, text and
    ``created_at`` (when that text was written); the older one is archived, as in a merge
    (``Consolidated with <newer> ...``, the agent's reason). Reads add up, the latest read,
    the lowest decay rate and the older note's source (pushed onto the history) carry
    over, and the importance is the higher of the two plus the merge bonus: an update of
    a fact is as important as the fact was."""
    plan = plan_merge(newer, older, similarity)
    top = max(float(newer.importance), float(older.importance))
    return replace(
        plan, created_at=None, importance=round(min(1.0, top + MERGE_IMPORTANCE_BONUS), 6)
    )


def merged_note(primary: Note, plan: MergePlan) -> Note:
    """The primary as ``plan`` would leave it (not written): the merge's preview."""
    return replace(
        primary,
        content=plan.content if plan.content is not None else primary.content,
        importance=plan.importance,
        decay_rate=plan.decay_rate,
        created_at=plan.created_at or primary.created_at,
        last_accessed=plan.last_accessed or primary.last_accessed,
        access_count=primary.access_count + plan.inc_access,
        absent=primary.absent - {*plan.set_fields, "access_count"},
    )


def newer_and_older(a: Note, b: Note) -> tuple[Note, Note] | None:
    """(newer, older) of two notes by ``created_at`` (when the text was first written),
    then ``updated_at``; None when neither tells them apart. ``updated_at`` comes second
    because decay and importance changes rewrite it without touching the text."""
    for x, y in ((a.created_at, b.created_at), (a.updated_at, b.updated_at)):
        if x is not None and y is not None and x != y:
            return (a, b) if x > y else (b, a)
    return None
