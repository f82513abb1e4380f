from __future__ import annotations

from dataclasses import asdict
from typing import Any

from ninja import Field, Schema

from graph_app.knowledge.domain import Entity
from qqweb.lib.api_types import CountOut

# Output schemas read the domain objects by attribute (ninja's ``from_attributes``): the
# store's dataclasses (``graph_app.knowledge.domain``) and the selectors' and services'
# results. Their JSON is what the API answered when these were dicts.


class GraphStatsOut(Schema):
    entities: int
    relationships: int
    sources: int
    orphans: int
    by_label: list[CountOut]
    by_relationship_type: list[CountOut]


class EntityKeyOut(Schema):
    label: str
    name: str


class EntityRowOut(Schema):
    label: str
    name: str
    description: str | None = None
    mentions: int
    first_seen: Any = None
    last_seen: Any = None
    aliases: list[str] | None = None

    @staticmethod
    def resolve_aliases(obj: Entity) -> list[str] | None:
        """``null`` when the entity has none, as when this was the raw property."""
        return list(obj.aliases) or None


class EntitiesPageOut(Schema):
    items: list[EntityRowOut]
    next_cursor: str | None


class EntityRelationshipOut(Schema):
    """A relationship of the entity to another entity; ``props`` are all its properties."""

    id: str
    type: str
    outgoing: bool
    other_label: str
    other_name: str | None
    props: dict[str, Any]


class ProvenanceOut(Schema):
    """A ``:Source`` the entity was extracted from, with all its properties."""

    source_id: str | None
    props: dict[str, Any]


class EntityOut(Schema):
    label: str
    name: str
    labels: list[str]
    properties: dict[str, str]
    aliases: list[str]
    embedding_dimension: int | None
    outgoing: list[EntityRelationshipOut]
    incoming: list[EntityRelationshipOut]
    provenance: list[ProvenanceOut]
    notes: list[dict[str, Any]]
    notes_unavailable: str = ""  # why ``notes`` is empty: MongoDB is down
    same_name_elsewhere: list[str]

    @staticmethod
    def resolve_properties(obj: Any) -> dict[str, str]:
        return dict(obj.properties)

    @staticmethod
    def resolve_notes(obj: Any) -> list[dict[str, Any]]:
        return [asdict(n) for n in obj.notes]  # the kernel's NoteMention, as JSON


class EntitySearchIn(Schema):
    query: str = Field(..., min_length=1, max_length=2000)
    label: str | None = Field(None, max_length=64)
    limit: int = Field(20, ge=1, le=100)


class EntityMatchOut(Schema):
    label: str
    name: str
    description: str | None
    score: float


class EntitySearchOut(Schema):
    results: list[EntityMatchOut]
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
    warnings: list[str] = Field(
        default_factory=list, description="what the agent does with a renamed entity's old name"
    )


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
    source: EntityKeyOut
    target: EntityKeyOut
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
    orphaned: list[EntityKeyOut]
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


class RelationshipEndOut(Schema):
    label: str
    name: str | None


class RelationshipOut(Schema):
    audit_id: int | None
    type: str
    start: RelationshipEndOut
    end: RelationshipEndOut
    properties: dict[str, str]


class GraphNodeOut(Schema):
    """An entity (``kind="entity"``: ``mentions``, ``degree``) or a ``:Source``
    (``kind="source"``: ``detail``). A node has only the keys of its kind."""

    id: str
    label: str
    name: str | None
    kind: str
    level: int
    mentions: int | None = None
    degree: int | None = None
    detail: str | None = None


class GraphEdgeOut(Schema):
    id: str
    source: str
    target: str
    type: str


class NeighbourhoodOut(Schema):
    center: GraphNodeOut
    nodes: list[GraphNodeOut]
    edges: list[GraphEdgeOut]
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


class CandidateEntityOut(Schema):
    label: str
    name: str | None
    mentions: int | None = None


class DuplicateEntitiesOut(Schema):
    a: CandidateEntityOut
    b: CandidateEntityOut
    reason: str = Field(description='"merged before", "same name" or "similar"')
    similarity: float | None
    note: str | None = Field(None, description="why, for a pair merged before")


class DuplicateEntitiesVerdictIn(Schema):
    a: EntityRefIn
    b: EntityRefIn
    verdict: str = Field(..., description="merge or not_duplicate", max_length=20)
    keep: str = Field(
        "a", description="with merge: which of the two survives, a or b", max_length=1
    )
