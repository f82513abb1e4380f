"""The graph at a glance: counts by label and type, most mentioned and recently seen."""

from __future__ import annotations

from dataclasses import dataclass, field

from graph_app.knowledge import GraphUnavailable
from graph_app.knowledge.domain import Entity
from graph_app.stores import graph_store
from qqweb.lib.links import GraphSummary


@dataclass(frozen=True)
class GraphOverview(GraphSummary):
    """The graph at a glance as the other apps see it (the kernel's GraphSummary: counts by
    label and type, sources, orphans) and, for the graph's own pages, the most mentioned
    and the most recently seen entities."""

    top: list[Entity] = field(default_factory=list)
    recent: list[Entity] = field(default_factory=list)


def graph_overview(*, with_entities: bool = False) -> GraphOverview:
    """Entity counts by label and relationship counts by type (``:Source`` provenance
    nodes counted apart), and with ``with_entities`` the most mentioned and the most
    recently seen entities. A graph that is down gives ``available=False`` and why."""
    store = graph_store()
    try:
        return GraphOverview(
            top=store.list_entities(sort="mentions", limit=10).items if with_entities else [],
            recent=store.list_entities(sort="last_seen", limit=10).items if with_entities else [],
            available=True,
            entities=store.count_entities(),
            sources=store.count_sources(),
            orphans=store.count_orphans(),
            by_label=list(store.count_by_label().items()),
            by_relationship_type=list(store.count_by_relationship_type().items()),
        )
    except GraphUnavailable as e:
        return GraphOverview(available=False, error=e.message)
