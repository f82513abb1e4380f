"""Reads over the knowledge graph, shaped for pages and the API."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from django.conf import settings

from graph_app.knowledge import (
    EntityNotFound,
    GraphUnavailable,
    InvalidIdentifier,
    checked_label,
)
from graph_app.knowledge.errors import AmbiguousEntity, InvalidGraphValue
from graph_app.knowledge.states import pair_key
from graph_app.models import EntityPairVerdict
from graph_app.stores import graph_store
from memory_app.memory import DimensionMismatch, InvalidNote
from memory_app.memory.dedup_math import similar_pairs
from memory_app.memory.vectors import normalise
from memory_app.stores import notes_store
from qqweb.clients import embedder


@dataclass
class GraphOverview:
    available: bool = False
    error: str = ""
    entities: int = 0
    sources: int = 0
    orphans: int = 0
    by_label: list[tuple[str, int]] = field(default_factory=list)
    by_relationship_type: list[tuple[str, int]] = field(default_factory=list)
    top: list[dict[str, Any]] = field(default_factory=list)
    recent: list[dict[str, Any]] = field(default_factory=list)

    @property
    def relationships(self) -> int:
        return sum(n for _, n in self.by_relationship_type)


def graph_overview(*, with_entities: bool = False) -> GraphOverview:
    """Entity counts by label and relationship counts by type (``:Source`` provenance
    nodes counted apart), and with ``with_entities`` the most mentioned and the most
    recently seen entities. A graph that is down gives ``available=False`` and why."""
    store = graph_store()
    try:
        return GraphOverview(
            top=store.list_entities(sort="mentions", limit=10) if with_entities else [],
            recent=store.list_entities(sort="last_seen", limit=10) if with_entities else [],
            available=True,
            entities=store.count_entities(),
            sources=store.count_sources(),
            orphans=store.count_orphans(),
            by_label=list(store.count_by_label().items()),
            by_relationship_type=list(store.count_by_relationship_type().items()),
        )
    except GraphUnavailable as e:
        return GraphOverview(available=False, error=e.message)


# --- browsing entities ---------------------------------------------------------------------


@dataclass
class EntitiesPage:
    items: list[dict[str, Any]]
    next_cursor: str | None


def _encode(key: Any, element_id: str) -> str:
    raw = json.dumps([key, element_id], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode(cursor: str) -> tuple[Any, str]:
    try:
        key, element_id = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        if not isinstance(element_id, str) or not isinstance(key, int | float | str):
            raise ValueError("bad cursor")
    except (ValueError, TypeError) as e:
        raise InvalidIdentifier("cursor", cursor[:40]) from e
    return key, element_id


def entities_page(
    *,
    label: str | None = None,
    q: str | None = None,
    sort: str = "mentions",
    cursor: str | None = None,
    limit: int = 50,
) -> EntitiesPage:
    """Entities filtered by label and name/alias text, sorted by mentions, first seen or
    last seen (newest first), in keyset pages."""
    limit = max(1, min(int(limit), 200))
    rows = graph_store().list_entities(
        label=label or None,
        q=(q or "").strip() or None,
        sort=sort,
        after=_decode(cursor) if cursor else None,
        limit=limit + 1,
    )
    more = len(rows) > limit
    rows = rows[:limit]
    return EntitiesPage(rows, _encode(rows[-1]["key"], rows[-1]["id"]) if more else None)


@dataclass
class EntityDetail:
    label: str
    name: str
    labels: list[str]
    properties: list[tuple[str, str]]
    aliases: list[str]
    embedding_dimension: int | None
    outgoing: list[dict[str, Any]]
    incoming: list[dict[str, Any]]
    provenance: list[dict[str, Any]]
    notes: list[dict[str, Any]]
    same_name_elsewhere: list[str] = field(default_factory=list)
    description: str = ""


def entity_detail(*, label: str, name: str) -> EntityDetail:
    """One entity by (label, name): its properties, relationships both ways with their
    properties, its provenance (:Source nodes), and the notes whose text names it."""
    store = graph_store()
    found = store.get_entities(label, name)
    if not found:
        raise EntityNotFound(label, name)
    entity = found[0]
    props = dict(entity["props"])
    embedding = props.pop("embedding", None)
    aliases = [str(a) for a in props.pop("aliases", None) or []]
    rels = store.relationships_of(entity["id"])
    for rel in rels:
        rel["props"] = {k: v for k, v in rel["props"].items() if k != "embedding"}
    others = [
        r["label"]
        for r in store.list_entities(q=name.lower(), limit=20)
        if r["name"] == name and r["label"] != label
    ]
    return EntityDetail(
        label=label,
        name=name,
        labels=entity["labels"],
        properties=sorted((k, str(v)) for k, v in props.items() if k != "name"),
        aliases=aliases,
        embedding_dimension=len(embedding) if embedding else None,
        outgoing=[r for r in rels if r["outgoing"]],
        incoming=[r for r in rels if not r["outgoing"]],
        provenance=store.provenance_of(entity["id"]),
        notes=notes_mentioning([name, *aliases]),
        same_name_elsewhere=others,
        description=str(props.get("description") or ""),
    )


def notes_mentioning(names: list[str], limit: int = 20) -> list[dict[str, Any]]:
    """Notes whose content names any of ``names`` (the notes store matches them as text)."""
    return notes_store().notes_mentioning(names, limit)


@dataclass
class EntitySearch:
    results: list[dict[str, Any]]
    compared: int
    skipped_other_dimensions: dict[int, int]
    model: str


def entities_search(*, query: str, label: str | None = None, limit: int = 20) -> EntitySearch:
    """Embed the query with the configured embedder and rank entities by the cosine with
    their ``"name: description"`` embedding. Only vectors of the query's dimension are
    compared; when none has it, a plain DimensionMismatch says which dimension they have."""
    query = query.strip()
    if not query:
        raise InvalidNote("query", "type something to search for")
    if label:
        checked_label(label)
    model = embedder()
    vector = model.embed([query])[0]
    rows = [r for r in graph_store().entity_embeddings() if not label or r["label"] == label]
    dims: dict[int, int] = {}
    same = []
    for row in rows:
        size = len(row["embedding"])
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
    scores = normalise(np.asarray([r["embedding"] for r in same], dtype=np.float32)) @ normalise(
        vector
    )
    order = np.argsort(-scores)[: max(1, min(limit, 100))]
    results = [
        {
            "label": same[i]["label"],
            "name": same[i]["name"],
            "description": same[i]["description"],
            "score": round(float(scores[i]), 4),
        }
        for i in order
    ]
    return EntitySearch(results, len(same), others, model.model_name)


# --- neighbourhood -------------------------------------------------------------------------

NEIGHBOURHOOD_MAX = 300
SOURCES_SHOWN = 12


@dataclass
class Neighbourhood:
    """Nodes and edges around one entity, at most ``limit`` entities, most mentioned
    neighbours first. ``total_neighbours`` counts every direct entity neighbour, so a page
    can say how many were left out; ``degree`` on each node says how many it has in all
    (more than are shown means clicking it can expand). ``:Source`` provenance of the
    centre comes as ``kind="source"`` nodes, never as entities."""

    center: dict[str, Any]
    nodes: list[dict[str, Any]]
    edges: list[dict[str, Any]]
    total_neighbours: int
    offset: int
    depth: int
    limit: int

    @property
    def shown_neighbours(self) -> int:
        return sum(1 for n in self.nodes if n["level"] == 1 and n["kind"] == "entity")

    def as_json(self) -> dict[str, Any]:
        """What the API answers and the page embeds for its script: the same data."""
        return {**vars(self), "shown_neighbours": self.shown_neighbours}


def neighbourhood(
    *, label: str, name: str, depth: int = 1, limit: int = 60, offset: int = 0
) -> Neighbourhood:
    if depth not in (1, 2):
        raise InvalidGraphValue("depth", "must be 1 or 2")
    if not 1 <= limit <= NEIGHBOURHOOD_MAX:
        raise InvalidGraphValue("limit", f"must be from 1 to {NEIGHBOURHOOD_MAX}")
    if offset < 0:
        raise InvalidGraphValue("offset", "must not be negative")
    store = graph_store()
    found = store.get_entities(label, name)
    if not found:
        raise EntityNotFound(label, name)
    center_id = found[0]["id"]
    props = found[0]["props"]
    center = {
        "id": center_id,
        "label": label,
        "name": name,
        "mentions": int(props.get("mention_count") or 0),
        "level": 0,
        "kind": "entity",
    }
    first = store.neighbours([center_id], [center_id], skip=offset, limit=limit)
    for node in first:
        node.update(level=1, kind="entity")
    nodes = [center, *first]
    room = limit - len(first)
    if depth == 2 and room > 0 and first:
        ids = [n["id"] for n in nodes]
        second = store.neighbours([n["id"] for n in first], ids, limit=room)
        for node in second:
            node.update(level=2, kind="entity")
        nodes += second
    ids = [n["id"] for n in nodes]
    degrees = store.degrees(ids)
    for node in nodes:
        node["degree"] = degrees.get(node["id"], 0)
    edges = store.edges_among(ids, limit=limit * 8)
    for source in store.sources_of(center_id, limit=SOURCES_SHOWN):
        nodes.append(
            {
                "id": source["id"],
                "label": "Source",
                "name": source["source_id"] or "(no source_id)",
                "kind": "source",
                "level": 1,
                "detail": source["file_path"] or source["source_type"] or "",
            }
        )
        edges.append(
            {
                "id": f"{center_id}->{source['id']}",
                "source": center_id,
                "target": source["id"],
                "type": "EXTRACTED_FROM",
            }
        )
    return Neighbourhood(
        center=center,
        nodes=nodes,
        edges=edges,
        total_neighbours=store.count_neighbours([center_id], [center_id]),
        offset=offset,
        depth=depth,
        limit=limit,
    )


# --- orphans, name lookups, duplicate candidates --------------------------------------------


def orphans(limit: int = 200) -> list[dict[str, Any]]:
    """Entities with no relationship to another entity (provenance does not count)."""
    return graph_store().orphans(limit=max(1, min(int(limit), 1000)))


def entity_lookup(name: str) -> dict[str, str]:
    """The entity a name alone means, as the agent looks it up; :class:`AmbiguousEntity`
    when the name is used under several labels."""
    labels = graph_store().labels_named(name)
    if not labels:
        raise EntityNotFound("entity", name)
    if len(labels) > 1:
        raise AmbiguousEntity(name, labels)
    return {"label": labels[0], "name": name}


@dataclass
class DuplicateCandidate:
    a: dict[str, Any]
    b: dict[str, Any]
    reason: str
    similarity: float | None = None


def duplicate_candidates(
    *, threshold: float | None = None, limit: int = 100
) -> list[DuplicateCandidate]:
    """Pairs of entities that may be one thing: the same name (ignoring case) under
    different labels, or ``"name: description"`` embeddings at least ``threshold``
    similar (same dimension only). Pairs a curator called not duplicates are left out."""
    threshold = settings.QQ_GRAPH_DUPLICATE_THRESHOLD if threshold is None else threshold
    decided = set(EntityPairVerdict.objects.values_list("entity_a", "entity_b"))

    def key(x: dict[str, Any], y: dict[str, Any]) -> tuple[str, str]:
        return pair_key((x["label"], x["name"]), (y["label"], y["name"]))

    found: dict[tuple[str, str], DuplicateCandidate] = {}
    store = graph_store()
    for group in store.same_name_groups(limit=limit):
        nodes = group["nodes"]
        for i, x in enumerate(nodes):
            for y in nodes[i + 1 :]:
                found.setdefault(key(x, y), DuplicateCandidate(x, y, "same name"))
    by_dim: dict[int, list[dict[str, Any]]] = {}
    for row in store.entity_embeddings():
        by_dim.setdefault(len(row["embedding"]), []).append(row)
    for rows in by_dim.values():
        if len(rows) < 2:
            continue
        ii, jj, ss = similar_pairs(np.asarray([r["embedding"] for r in rows]), threshold)
        for i, j, s in sorted(zip(ii, jj, ss, strict=True), key=lambda t: -t[2])[: limit * 2]:
            x = {"label": rows[i]["label"], "name": rows[i]["name"]}
            y = {"label": rows[j]["label"], "name": rows[j]["name"]}
            pair = key(x, y)
            if pair in found:
                found[pair].similarity = round(float(s), 4)
            else:
                found[pair] = DuplicateCandidate(x, y, "similar", round(float(s), 4))
    ordered = sorted(
        (c for k, c in found.items() if k not in decided),
        key=lambda c: (c.reason != "same name", -(c.similarity or 0)),
    )
    return ordered[:limit]
