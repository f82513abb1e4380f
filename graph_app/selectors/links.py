"""What the graph offers the other apps through the kernel (``qqweb.lib.links``): the
entities a text names (the notes' retrieval preview) and the graph at a glance (the
Overview). Registered in ``GraphAppConfig.ready()``; answers kernel dataclasses only."""

from __future__ import annotations

from graph_app.knowledge import GraphUnavailable
from graph_app.selectors.overview import graph_overview
from graph_app.stores import graph_store
from qqweb.lib.links import EntityRelation, GraphSummary, RelatedEntities, RelatedEntity


class GraphEntitiesReader:
    def entities_mentioned_in(self, text: str, limit: int = 10) -> RelatedEntities:
        """Entities whose name or an alias ``text`` contains, each with a few of its
        relationships; empty with why when Neo4j is down."""
        try:
            rows = graph_store().entities_mentioned_in(text, limit=limit)
        except GraphUnavailable as e:
            return RelatedEntities([], unavailable=str(e))
        return RelatedEntities(
            [
                RelatedEntity(
                    label=row["label"],
                    name=row["name"],
                    description=row.get("description"),
                    rels=[
                        EntityRelation(type=r["type"], other=r.get("other"), outgoing=r["outgoing"])
                        for r in row["rels"]
                    ],
                )
                for row in rows
            ]
        )

    def graph_summary(self) -> GraphSummary:
        return graph_overview()  # a GraphOverview is the kernel's GraphSummary
