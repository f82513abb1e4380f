"""The facts agent's rules as pure functions, re-implemented from the data contract
(``facts-data-contract.md`` 2.5, 2.6, 4.6), never copied from the agent:

- :func:`add_check` - W1: the agent refuses to save a text at cosine >= 0.95 to any fact
  (:class:`AddTest` for many added one after another);
- :func:`cleanup_plan` - W3: what the next agent start hard-deletes (float64 cosine over
  the stored doubles, ascending ``timestamp`` in BSON order, greedy, not transitive), with
  timestamp ties and the +-1e-6 borderline band flagged;
- :func:`retrieval_top` - the automatic retrieval: top 3 by cosine, no floor, and the
  lines the agent injects into its prompt.

Inputs are :class:`~memory_app.facts.lib.domain.Fact` objects as read; only ``type: "fact"``
documents with a valid, non-zero vector take part, as in the agent. One invalid vector
anywhere makes the agent's whole pass fail (2.7): every result says so in ``aborted_by``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
from bson import ObjectId

from memory_app.facts.lib.constants import (
    BORDERLINE_BAND,
    DIMENSION,
    DUPLICATE_THRESHOLD,
    FACT_TYPE,
    RETRIEVAL_TOP_K,
)
from memory_app.facts.lib.domain import MISSING, EmbeddingState, Fact

BLOCK_ROWS = 1024


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """The agent's float64 cosine of two stored vectors: ``dot / (|a| |b|)``."""
    va, vb = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(np.dot(va, vb) / (np.linalg.norm(va) * np.linalg.norm(vb)))


def is_borderline(score: float, threshold: float = DUPLICATE_THRESHOLD) -> bool:
    return abs(score - threshold) <= BORDERLINE_BAND


# --- which facts the agent sees ----------------------------------------------------------


@dataclass(frozen=True)
class AgentView:
    """The facts the agent's passes use (valid, non-zero vectors), and the ones that make
    those passes fail."""

    facts: list[Fact]
    vectors: np.ndarray  # float64, one row per fact
    aborted_by: list[Fact]  # type "fact" with an invalid vector: the pass raises


def agent_view(facts: Iterable[Fact]) -> AgentView:
    """Facts with ``type: "fact"`` and a ``content_embedding`` (``$exists``), minus the
    empty and zero vectors the agent skips; the invalid ones are listed apart."""
    usable: list[Fact] = []
    broken: list[Fact] = []
    for fact in facts:
        if fact.type != FACT_TYPE or fact.content_embedding is MISSING:
            continue
        state = fact.embedding
        if state is EmbeddingState.OK:
            usable.append(fact)
        elif state is EmbeddingState.INVALID:
            broken.append(fact)
    vectors = (
        np.array([f.content_embedding for f in usable], dtype=np.float64)
        if usable
        else np.zeros((0, 0), dtype=np.float64)
    )
    return AgentView(usable, vectors, broken)


def _similarities(vectors: np.ndarray, query: np.ndarray) -> np.ndarray:
    if not len(vectors):
        return np.zeros(0, dtype=np.float64)
    norms = np.linalg.norm(vectors, axis=1)
    return np.asarray((vectors @ query) / (norms * np.linalg.norm(query)), dtype=np.float64)


# --- W1: the add test --------------------------------------------------------------------


@dataclass(frozen=True)
class AddVerdict:
    refused: bool  # the agent would not save the text
    best: Fact | None
    best_score: float | None
    borderline: bool  # within 1e-6 of 0.95: the prediction is unreliable
    zero_vector: bool = False  # the agent inserts nothing for a zero-norm embedding
    aborted_by: list[Fact] = field(default_factory=list)  # add fails (returns None)

    @property
    def saved(self) -> bool:
        return not (self.refused or self.zero_vector or self.aborted_by)


def add_check(vector: Sequence[float], facts: Iterable[Fact]) -> AddVerdict:
    """W1: would the agent save a fact with this embedding? Refused at >= 0.95 to any."""
    query = np.asarray(vector, dtype=np.float64)
    view = agent_view(facts)
    if not np.linalg.norm(query):
        return AddVerdict(False, None, None, False, zero_vector=True, aborted_by=view.aborted_by)
    scores = _similarities(view.vectors, query)
    if not len(scores):
        return AddVerdict(False, None, None, False, aborted_by=view.aborted_by)
    i = int(np.argmax(scores))
    best = float(scores[i])
    return AddVerdict(
        refused=best >= DUPLICATE_THRESHOLD,
        best=view.facts[i],
        best_score=best,
        borderline=is_borderline(best),
        aborted_by=view.aborted_by,
    )


class AddTest:
    """W1 for facts added one after another (an import): each is tested against the facts
    given and the ones :meth:`add`-ed since, as the agent's add would see them. The vectors
    (384-d, as every usable fact's) are stacked once and grow in place, so n additions cost
    n searches, not n stackings of the whole store."""

    def __init__(self, facts: Iterable[Fact]) -> None:
        self.facts: list[Fact] = []
        self._rows = np.zeros((64, DIMENSION), dtype=np.float64)
        for fact in agent_view(facts).facts:
            self.add(fact)

    def check(self, vector: Sequence[float]) -> AddVerdict:
        n = len(self.facts)
        scores = _similarities(self._rows[:n], np.asarray(vector, dtype=np.float64))
        if not len(scores):
            return AddVerdict(False, None, None, False)
        i = int(np.argmax(scores))
        best = float(scores[i])
        return AddVerdict(best >= DUPLICATE_THRESHOLD, self.facts[i], best, is_borderline(best))

    def add(self, fact: Fact) -> None:
        """``fact`` is saved: later checks see it (it must have a usable vector)."""
        if len(self.facts) == len(self._rows):
            self._rows = np.concatenate([self._rows, np.zeros_like(self._rows)])
        self._rows[len(self.facts)] = np.asarray(fact.content_embedding, dtype=np.float64)
        self.facts.append(fact)


# --- W3: the next-start cleanup ----------------------------------------------------------

# BSON comparison order of the types a timestamp can have (missing sorts as null).
_BSON_RANK = {
    "null": 1,
    "number": 2,
    "string": 3,
    "object": 4,
    "array": 5,
    "binary": 6,
    "objectid": 7,
    "bool": 8,
    "date": 9,
}


def bson_sort_key(value: Any) -> tuple[int, Any]:
    """A key that sorts values as MongoDB's ascending sort does (BSON comparison order:
    missing and null lowest, then numbers, strings, ..., dates). Arrays and objects are
    ranked by type only."""
    if value is MISSING or value is None:
        return (_BSON_RANK["null"], 0)
    if isinstance(value, bool):
        return (_BSON_RANK["bool"], value)
    if isinstance(value, int | float):
        return (_BSON_RANK["number"], value)
    if isinstance(value, str):
        return (_BSON_RANK["string"], value.encode())
    if isinstance(value, datetime):
        return (_BSON_RANK["date"], value.replace(tzinfo=None))
    if isinstance(value, ObjectId):
        return (_BSON_RANK["objectid"], value.binary)
    if isinstance(value, bytes):
        return (_BSON_RANK["binary"], (len(value), value))
    if isinstance(value, list):
        return (_BSON_RANK["array"], 0)
    return (_BSON_RANK["object"], 0)


def agent_order(facts: Sequence[Fact]) -> list[int]:
    """Indexes of ``facts`` in the agent's cleanup order: ``timestamp`` ascending in BSON
    order. The agent's order among equal timestamps is not guaranteed; ours is the read
    order, and such ties are flagged by the plan."""
    return sorted(range(len(facts)), key=lambda i: bson_sort_key(facts[i].timestamp))


@dataclass(frozen=True)
class Deletion:
    """``deleted`` will be hard-deleted at the next start because the older ``anchor``
    (kept, or at least walked first) is at ``score`` >= 0.95 to it."""

    anchor: Fact
    deleted: Fact
    score: float
    borderline: bool  # within 1e-6 of 0.95: the agent may decide either way
    tie: bool  # same timestamp: the agent may keep either one


@dataclass(frozen=True)
class CleanupPlan:
    deletions: list[Deletion]
    near_misses: list[Deletion]  # just below 0.95, within the borderline band: kept
    considered: int  # facts the pass walks
    aborted_by: list[Fact]  # invalid vectors: the real pass raises and deletes nothing

    @property
    def aborted(self) -> bool:
        return bool(self.aborted_by)

    @property
    def deleted_ids(self) -> set[str]:
        return {d.deleted.hex_id for d in self.deletions}


PREFILTER_MARGIN = 1e-4  # float32 error of a 384-d normalised dot is far below this


def candidate_pairs(
    vectors: np.ndarray, threshold: float, block_rows: int = BLOCK_ROWS
) -> list[tuple[int, int, float]]:
    """Every pair ``i < j`` (row order) with float64 cosine >= ``threshold``, exact: a
    float32 pass over the upper triangle in row blocks finds the candidates (with a
    margin), then each candidate's cosine is computed as the agent does, in float64."""
    n = len(vectors)
    if n < 2:
        return []
    norms = np.linalg.norm(vectors, axis=1)
    unit32 = (vectors / norms[:, None]).astype(np.float32)
    pairs: list[tuple[int, int, float]] = []
    for start in range(0, n, block_rows):
        stop = min(start + block_rows, n)
        block = unit32[start:stop] @ unit32[start:].T  # columns from ``start`` on
        rows, cols = np.nonzero(block >= threshold - PREFILTER_MARGIN)
        for r, c in zip(rows.tolist(), cols.tolist(), strict=True):
            i, j = start + r, start + c
            if j <= i:
                continue
            score = float(np.dot(vectors[i], vectors[j]) / (norms[i] * norms[j]))
            if score >= threshold:
                pairs.append((i, j, score))
    pairs.sort()
    return pairs


def cleanup_plan(facts: Iterable[Fact], *, block_rows: int = BLOCK_ROWS) -> CleanupPlan:
    """W3, exactly: walk the facts oldest first; a fact already marked is skipped as
    anchor and as candidate; an anchor marks every later unmarked fact at >= 0.95."""
    view = agent_view(facts)
    order = agent_order(view.facts)
    ordered = [view.facts[i] for i in order]
    vectors = view.vectors[order] if len(order) else view.vectors
    keys = [bson_sort_key(f.timestamp) for f in ordered]
    pairs = candidate_pairs(vectors, DUPLICATE_THRESHOLD - BORDERLINE_BAND, block_rows)
    marked: set[int] = set()
    deletions: list[Deletion] = []
    near: list[Deletion] = []
    for i, j, score in pairs:  # sorted by anchor, so anchors are walked oldest first
        pair = Deletion(ordered[i], ordered[j], score, is_borderline(score), keys[i] == keys[j])
        if score < DUPLICATE_THRESHOLD:
            if i not in marked and j not in marked:
                near.append(pair)
            continue
        if i in marked or j in marked:
            continue
        marked.add(j)
        deletions.append(pair)
    return CleanupPlan(deletions, near, len(ordered), view.aborted_by)


def similar_pairs(facts: Iterable[Fact], threshold: float) -> list[Deletion]:
    """Pairs at ``threshold`` <= cosine < 0.95, older first (the optional "possible
    contradictions" tier)."""
    view = agent_view(facts)
    order = agent_order(view.facts)
    ordered = [view.facts[i] for i in order]
    vectors = view.vectors[order] if len(order) else view.vectors
    keys = [bson_sort_key(f.timestamp) for f in ordered]
    return [
        Deletion(ordered[i], ordered[j], s, is_borderline(s), keys[i] == keys[j])
        for i, j, s in candidate_pairs(vectors, threshold)
        if s < DUPLICATE_THRESHOLD
    ]


# --- retrieval ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Retrieved:
    fact: Fact
    score: float


@dataclass(frozen=True)
class Retrieval:
    results: list[Retrieved]
    aborted_by: list[Fact]  # one invalid vector: the agent's retrieval returns []

    @property
    def injected(self) -> list[dict[str, Any]]:
        """What the agent returns (the score dropped); [] when it would fail."""
        if self.aborted_by:
            return []
        return [{"_id": r.fact.hex_id, "content": r.fact.content} for r in self.results]

    @property
    def injected_lines(self) -> list[str]:
        """One line per fact, the Python dict rendered as the agent's prompt has it."""
        return [f"- {item}" for item in self.injected]


def retrieval_top(
    vector: Sequence[float], facts: Iterable[Fact], k: int = RETRIEVAL_TOP_K
) -> Retrieval:
    """The agent's automatic retrieval: float64 cosine, sorted descending (stable: equal
    scores keep the read order), the top ``k`` with no minimum score."""
    query = np.asarray(vector, dtype=np.float64)
    view = agent_view(facts)
    scores = _similarities(view.vectors, query)
    ranked = sorted(range(len(scores)), key=lambda i: float(scores[i]), reverse=True)[:k]
    return Retrieval([Retrieved(view.facts[i], float(scores[i])) for i in ranked], view.aborted_by)


def nearest(fact: Fact, facts: Iterable[Fact], k: int = 10) -> list[Retrieved]:
    """The ``k`` facts most similar to ``fact`` (itself excluded), for its page."""
    if fact.embedding is not EmbeddingState.OK:
        return []
    others = [f for f in facts if f.hex_id != fact.hex_id]
    view = agent_view(others)
    scores = _similarities(view.vectors, np.asarray(fact.content_embedding, dtype=np.float64))
    ranked = sorted(range(len(scores)), key=lambda i: float(scores[i]), reverse=True)[:k]
    return [Retrieved(view.facts[i], float(scores[i])) for i in ranked]
