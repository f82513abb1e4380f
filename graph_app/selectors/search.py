"""Semantic search over the entities' ``"name: description"`` embeddings."""

from __future__ import annotations

from dataclasses import dataclass

from graph_app.knowledge import checked_label
from graph_app.stores import graph_store
from qqweb.lib.errors import InvalidInput


@dataclass(frozen=True)
class EntityMatch:
    """An entity found by meaning, with the cosine of its embedding with the query's."""

    label: str
    name: str
    description: str | None
    score: float


@dataclass
class EntitySearch:
    results: list[EntityMatch]
    compared: int
    skipped_other_dimensions: dict[int, int]
    model: str


def entities_search(*, query: str, label: str | None = None, limit: int = 20) -> EntitySearch:
    """Embed the query with the configured embedder and rank entities by the cosine with
    their ``"name: description"`` embedding. Only vectors of the query's dimension are
    compared; when none has it, a plain DimensionMismatch says which dimension they have."""
    import numpy as np

    from qqweb.lib.clients import embedder
    from qqweb.lib.errors import DimensionMismatch
    from qqweb.lib.vectors import normalise

    query = query.strip()
    if not query:
        raise InvalidInput("query", "type something to search for")
    if label:
        checked_label(label)
    model = embedder()
    vector = model.embed([query])[0]
    rows = [r for r in graph_store().entity_embeddings() if not label or r.label == label]
    dims: dict[int, int] = {}
    same = []
    for row in rows:
        size = len(row.vector)
        dims[size] = dims.get(size, 0) + 1
        if size == len(vector):
            same.append(row)
    others = {d: n for d, n in dims.items() if d != len(vector)}
    if not same:
        if others:
            raise DimensionMismatch(
                max(others, key=lambda d: others[d]), len(vector), "the query vector"
            )
        return EntitySearch([], 0, {}, model.model_name)
    scores = normalise(np.asarray([r.vector for r in same], dtype=np.float32)) @ normalise(vector)
    order = np.argsort(-scores)[: max(1, min(limit, 100))]
    results = [
        EntityMatch(
            label=same[i].label,
            name=same[i].name,
            description=same[i].description,
            score=round(float(scores[i]), 4),
        )
        for i in order
    ]
    return EntitySearch(results, len(same), others, model.model_name)
