from __future__ import annotations

from typing import Any

from ninja import Field, Schema

from memory_app.schemas import CountOut


class GraphStatsOut(Schema):
    entities: int
    relationships: int
    sources: int
    orphans: int
    by_label: list[CountOut]
    by_relationship_type: list[CountOut]


class EntityRowOut(Schema):
    label: str
    name: str
    description: str | None = None
    mentions: int
    first_seen: Any = None
    last_seen: Any = None
    aliases: list[str] | None = None


class EntitiesPageOut(Schema):
    items: list[EntityRowOut]
    next_cursor: str | None


class EntityOut(Schema):
    label: str
    name: str
    labels: list[str]
    properties: dict[str, str]
    aliases: list[str]
    embedding_dimension: int | None
    outgoing: list[dict[str, Any]]
    incoming: list[dict[str, Any]]
    provenance: list[dict[str, Any]]
    notes: list[dict[str, Any]]
    same_name_elsewhere: list[str]


class EntitySearchIn(Schema):
    query: str = Field(..., min_length=1, max_length=2000)
    label: str | None = None
    limit: int = Field(20, ge=1, le=100)


class EntitySearchOut(Schema):
    results: list[dict[str, Any]]
    compared: int
    skipped_other_dimensions: dict[int, int]
    model: str
