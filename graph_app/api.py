"""JSON front door of the knowledge graph: a ninja router added to ``qqweb.api``."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Router

from graph_app.knowledge import GraphUnavailable
from graph_app.schemas import GraphStatsOut
from graph_app.selectors import graph_overview
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
