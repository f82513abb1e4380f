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


class EntityRefIn(Schema):
    label: str = Field(..., min_length=1, max_length=64)
    name: str = Field(..., min_length=1, max_length=300)


class EntityPatchIn(Schema):
    description: str | None = Field(None, max_length=4000)
    name: str | None = Field(None, min_length=1, max_length=300)


class EntityStateOut(Schema):
    label: str
    name: str
    aliases: list[str]
    description: str | None
    audit_id: int | None = None


class MergeIn(Schema):
    source: EntityRefIn
    target: EntityRefIn
    description: str | None = Field(None, max_length=4000)
    dry_run: bool = False


class RelRefOut(Schema):
    type: str
    direction: str
    other_label: str
    other_name: str | None
    provenance: bool = False


class MergeOut(Schema):
    source: dict[str, str]
    target: dict[str, str]
    properties: dict[str, str]
    aliases: list[str]
    moved: list[RelRefOut]
    combined: list[RelRefOut]
    dropped: list[RelRefOut]
    relationships_after: list[RelRefOut]
    re_embed: bool
    applied: bool
    audit_id: int | None
    warnings: list[str]


class DeleteOut(Schema):
    label: str
    name: str
    relationships: list[RelRefOut]
    provenance: int
    orphaned: list[dict[str, str]]
    applied: bool
    audit_id: int | None


class RelationshipPatchIn(Schema):
    start: EntityRefIn
    type: str = Field(..., min_length=1, max_length=64)
    end: EntityRefIn
    new_type: str | None = Field(None, min_length=1, max_length=64)
    description: str | None = Field(None, max_length=4000)
    evidence: str | None = Field(None, max_length=4000)
    notes: str | None = Field(None, max_length=4000)
    confidence: float | None = Field(None, ge=0, le=1)


class RelationshipOut(Schema):
    audit_id: int | None
    type: str
    start: dict[str, Any]
    end: dict[str, Any]
    properties: dict[str, str]


class NeighbourhoodOut(Schema):
    center: dict[str, Any]
    nodes: list[dict[str, Any]]
    edges: list[dict[str, Any]]
    total_neighbours: int
    shown_neighbours: int
    offset: int
    depth: int
    limit: int


class OrphanOut(Schema):
    label: str
    name: str | None


class LookupOut(Schema):
    label: str
    name: str


class CandidateOut(Schema):
    a: dict[str, Any]
    b: dict[str, Any]
    reason: str
    similarity: float | None


class VerdictIn(Schema):
    a: EntityRefIn
    b: EntityRefIn
    verdict: str = Field(..., description="merge or not_duplicate")
    keep: str = Field("a", description="with merge: which of the two survives, a or b")
