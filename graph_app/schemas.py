from __future__ import annotations

from ninja import Schema

from memory_app.schemas import CountOut


class GraphStatsOut(Schema):
    entities: int
    relationships: int
    sources: int
    orphans: int
    by_label: list[CountOut]
    by_relationship_type: list[CountOut]
