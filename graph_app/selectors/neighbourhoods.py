"""The neighbourhood of an entity, as nodes and edges for the graph view and the API."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graph_app.knowledge import EntityNotFound
from graph_app.knowledge.domain import SOURCE_LABEL, EntitySummary, GraphEdge, GraphNode
from graph_app.stores import graph_store

NEIGHBOURHOOD_MAX = 300
SOURCES_SHOWN = 12
MAX_OFFSET = 100_000  # the API declares the same bound (qqweb.lib.api_types.Offset)


@dataclass
class Neighbourhood:
    """Nodes and edges around one entity, at most ``limit`` entities, most mentioned
    neighbours first. ``total_neighbours`` counts every direct entity neighbour, so a page
    can say how many were left out; ``degree`` on each node says how many it has in all
    (more than are shown means clicking it can expand). ``:Source`` provenance of the
    centre comes as ``kind="source"`` nodes, never as entities."""

    center: GraphNode
    nodes: list[GraphNode]
    edges: list[GraphEdge]
    total_neighbours: int
    offset: int
    depth: int
    limit: int

    @property
    def shown_neighbours(self) -> int:
        return sum(1 for n in self.nodes if n.level == 1 and n.kind == "entity")

    def as_json(self) -> dict[str, Any]:
        """What the API answers and the page embeds for its script: the same data."""
        return {
            "center": self.center.as_json(),
            "nodes": [node.as_json() for node in self.nodes],
            "edges": [vars(edge) for edge in self.edges],
            "total_neighbours": self.total_neighbours,
            "offset": self.offset,
            "depth": self.depth,
            "limit": self.limit,
            "shown_neighbours": self.shown_neighbours,
        }


def neighbourhood(
    *, label: str, name: str, depth: int = 1, limit: int = 60, offset: int = 0
) -> Neighbourhood:
    from graph_app.knowledge.errors import InvalidGraphValue

    if depth not in (1, 2):
        raise InvalidGraphValue("depth", "must be 1 or 2")
    if not 1 <= limit <= NEIGHBOURHOOD_MAX:
        raise InvalidGraphValue("limit", f"must be from 1 to {NEIGHBOURHOOD_MAX}")
    if not 0 <= offset <= MAX_OFFSET:
        raise InvalidGraphValue("offset", f"must be from 0 to {MAX_OFFSET}")
    store = graph_store()
    found = store.get_entities(label, name)
    if not found:
        raise EntityNotFound(label, name)
    center_id = found[0].id
    levels: list[tuple[int, EntitySummary]] = [
        (0, EntitySummary(center_id, label, name, found[0].mentions))
    ]
    first = store.neighbours([center_id], [center_id], skip=offset, limit=limit)
    levels += [(1, entity) for entity in first]
    room = limit - len(first)
    if depth == 2 and room > 0 and first:
        ids = [entity.id for _, entity in levels]
        second = store.neighbours([n.id for n in first], ids, limit=room)
        levels += [(2, entity) for entity in second]
    ids = [entity.id for _, entity in levels]
    degrees = store.degrees(ids)
    nodes = [
        GraphNode(
            id=entity.id,
            label=entity.label,
            name=entity.name,
            kind="entity",
            level=level,
            mentions=entity.mentions,
            degree=degrees.get(entity.id, 0),
        )
        for level, entity in levels
    ]
    edges = store.edges_among(ids, limit=limit * 8)
    for source in store.sources_of(center_id, limit=SOURCES_SHOWN):
        nodes.append(
            GraphNode(
                id=source.id,
                label=SOURCE_LABEL,
                name=source.source_id or "(no source_id)",
                kind="source",
                level=1,
                detail=source.file_path or source.source_type or "",
            )
        )
        edges.append(
            GraphEdge(
                id=f"{center_id}->{source.id}",
                source=center_id,
                target=source.id,
                type="EXTRACTED_FROM",
            )
        )
    return Neighbourhood(
        center=nodes[0],
        nodes=nodes,
        edges=edges,
        total_neighbours=store.count_neighbours([center_id], [center_id]),
        offset=offset,
        depth=depth,
        limit=limit,
    )
