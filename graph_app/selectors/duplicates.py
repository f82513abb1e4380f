"""Duplicate-entity candidates: an entity the agent re-created under a name that is an
alias of another, the same name under several labels, or similar embeddings."""

from __future__ import annotations

from dataclasses import dataclass

from graph_app.knowledge.agent_names import MERGED_BEFORE, merged_before_note
from graph_app.knowledge.domain import EntityEmbedding, EntitySummary
from graph_app.knowledge.errors import InvalidGraphValue
from graph_app.stores import graph_store

REASON_ORDER = {MERGED_BEFORE: 0, "same name": 1, "similar": 2}
MAX_CANDIDATES = 1000


@dataclass
class DuplicateCandidate:
    """Two entities that may be one: ``reason`` is ``"merged before"`` (``b`` is named
    like an alias of ``a``, of the same label: the agent re-created it after a rename or
    a merge; ``note`` says so), ``"same name"`` or ``"similar"`` (``similarity``, the
    cosine of their embeddings, when they have comparable ones)."""

    a: EntitySummary
    b: EntitySummary
    reason: str
    similarity: float | None = None
    note: str | None = None


def duplicate_candidates(
    *, threshold: float | None = None, limit: int = 100
) -> list[DuplicateCandidate]:
    """Pairs of entities that may be one thing, in this order: an entity named like an
    alias of another of its label ("merged before": the agent, which never reads aliases,
    re-created it after a rename or a merge; ``a`` holds the alias), the same name
    (ignoring case) under different labels, or ``"name: description"`` embeddings at
    least ``threshold`` similar (same dimension only). Pairs a curator called not
    duplicates are left out."""
    import numpy as np
    from django.conf import settings

    from graph_app.knowledge.states import pair_key
    from graph_app.models import EntityPairVerdict
    from qqweb.lib.vectors import similar_pairs

    threshold = settings.QQ_GRAPH_DUPLICATE_THRESHOLD if threshold is None else threshold
    if not 0 < threshold <= 1:  # also NaN
        raise InvalidGraphValue("threshold", "must be above 0 and at most 1")
    if not 1 <= limit <= MAX_CANDIDATES:
        raise InvalidGraphValue("limit", f"must be from 1 to {MAX_CANDIDATES}")
    decided = set(EntityPairVerdict.objects.values_list("entity_a", "entity_b"))

    def key(x: EntitySummary, y: EntitySummary) -> tuple[str, str]:
        return pair_key((x.label, x.name or ""), (y.label, y.name or ""))

    found: dict[tuple[str, str], DuplicateCandidate] = {}
    store = graph_store()
    for found_again in store.recreated_names(limit=limit):
        x, y = found_again.holder, found_again.entity
        note = merged_before_note(y.name or "", x.name or "")
        found.setdefault(key(x, y), DuplicateCandidate(x, y, MERGED_BEFORE, note=note))
    for group in store.same_name_groups(limit=limit):
        nodes = group.entities
        for i, x in enumerate(nodes):
            for y in nodes[i + 1 :]:
                found.setdefault(key(x, y), DuplicateCandidate(x, y, "same name"))
    by_dim: dict[int, list[EntityEmbedding]] = {}
    for row in store.entity_embeddings():
        by_dim.setdefault(len(row.vector), []).append(row)
    for rows in by_dim.values():
        if len(rows) < 2:
            continue
        ii, jj, ss = similar_pairs(np.asarray([r.vector for r in rows]), threshold)
        for i, j, s in sorted(zip(ii, jj, ss, strict=True), key=lambda t: -t[2])[: limit * 2]:
            x, y = rows[i].summary, rows[j].summary
            pair = key(x, y)
            if pair in found:
                found[pair].similarity = round(float(s), 4)
            else:
                found[pair] = DuplicateCandidate(x, y, "similar", round(float(s), 4))
    ordered = sorted(
        (c for k, c in found.items() if k not in decided),
        key=lambda c: (REASON_ORDER.get(c.reason, 3), -(c.similarity or 0)),
    )
    return ordered[:limit]
