"""JSON front door of the knowledge graph: a ninja router added to ``qqweb.api``."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Router

from graph_app.knowledge import GraphUnavailable
from graph_app.schemas import (
    EntitiesPageOut,
    EntityOut,
    EntitySearchIn,
    EntitySearchOut,
    GraphStatsOut,
)
from graph_app.selectors import entities_page, entity_detail, graph_overview
from graph_app.selectors import entities_search as search_entities
from qqweb.auth import VIEWER, require_role

router = Router(tags=["graph"])


@router.get("/stats", response=GraphStatsOut)
def stats(request: HttpRequest) -> dict[str, Any]:
    """Entities by label, relationships by type, ``:Source`` provenance nodes, orphans.
    503 when Neo4j is down."""
    require_role(request, VIEWER)
    data = graph_overview()
    if not data.available:
        raise GraphUnavailable(data.error)
    return {
        "entities": data.entities,
        "relationships": data.relationships,
        "sources": data.sources,
        "orphans": data.orphans,
        "by_label": [{"name": k, "count": n} for k, n in data.by_label],
        "by_relationship_type": [{"name": k, "count": n} for k, n in data.by_relationship_type],
    }


@router.get("/entities", response=EntitiesPageOut)
def entities(
    request: HttpRequest,
    label: str = "",
    q: str = "",
    sort: str = "mentions",
    cursor: str = "",
    limit: int = 50,
) -> dict[str, Any]:
    """Entities (``:Source`` provenance left out) filtered by label and name/alias text,
    sorted by mentions, first_seen or last_seen, in keyset pages."""
    require_role(request, VIEWER)
    page = entities_page(
        label=label or None, q=q or None, sort=sort, cursor=cursor or None, limit=limit
    )
    return {"items": page.items, "next_cursor": page.next_cursor}


@router.get("/entities/{label}/{name}", response=EntityOut)
def entity(request: HttpRequest, label: str, name: str) -> dict[str, Any]:
    """One entity by (label, name) with its relationships, provenance and the notes that
    name it."""
    require_role(request, VIEWER)
    detail = entity_detail(label=label, name=name)
    return {**vars(detail), "properties": dict(detail.properties)}


@router.post("/entities/search", response=EntitySearchOut)
def entities_search(request: HttpRequest, body: EntitySearchIn) -> dict[str, Any]:
    """Semantic search over entities' ``"name: description"`` embeddings; 422 when the
    configured model's dimension matches none of them."""
    require_role(request, VIEWER)
    found = search_entities(query=body.query, label=body.label or None, limit=body.limit)
    return vars(found)
