"""JSON front door of the knowledge graph: a ninja router added to ``qqweb.api``."""

from __future__ import annotations

from typing import Annotated, Any

from django.http import HttpRequest
from ninja import Router, Status
from pydantic import Field

from graph_app import selectors, services
from graph_app.knowledge import GraphUnavailable
from graph_app.knowledge.domain import EntityRef, OrphanEntity
from graph_app.knowledge.states import EntityState, RelationshipState
from graph_app.schemas import (
    DeleteOut,
    DuplicateEntitiesOut,
    DuplicateEntitiesVerdictIn,
    EntitiesPageOut,
    EntityOut,
    EntityPatchIn,
    EntitySearchIn,
    EntitySearchOut,
    EntityStateOut,
    GraphStatsOut,
    LookupOut,
    MergeIn,
    MergeOut,
    NeighbourhoodOut,
    OrphanOut,
    RelationshipEndOut,
    RelationshipOut,
    RelationshipPatchIn,
)
from graph_app.selectors import (
    DuplicateCandidate,
    EntitiesPage,
    EntityDetail,
    EntitySearch,
    entities_page,
    entity_detail,
    graph_overview,
)
from graph_app.selectors import entities_search as search_entities
from graph_app.selectors.neighbourhoods import NEIGHBOURHOOD_MAX
from qqweb.lib.actors import Actor
from qqweb.lib.api_types import CountOut, Cursor, Limit200, Limit1000, Offset, Similarity, errors
from qqweb.lib.auth import CURATOR, VIEWER, require_role

Label = Annotated[str, Field(max_length=64)]
Name = Annotated[str, Field(max_length=300)]

router = Router(tags=["graph"])


@router.get("/stats", response={200: GraphStatsOut, **errors(503)})
def stats(request: HttpRequest) -> GraphStatsOut:
    """Entities by label, relationships by type, ``:Source`` provenance nodes, orphans.
    503 when Neo4j is down."""
    require_role(request, VIEWER)
    data = graph_overview()
    if not data.available:
        raise GraphUnavailable(data.error)
    return GraphStatsOut(
        entities=data.entities,
        relationships=data.relationships,
        sources=data.sources,
        orphans=data.orphans,
        by_label=[CountOut(name=k, count=n) for k, n in data.by_label],
        by_relationship_type=[CountOut(name=k, count=n) for k, n in data.by_relationship_type],
    )


@router.get("/entities", response={200: EntitiesPageOut, **errors(503)})
def entities(
    request: HttpRequest,
    label: Label = "",
    q: Name = "",
    sort: Annotated[str, Field(max_length=20, description="mentions, first_seen or last_seen")] = (
        "mentions"
    ),
    cursor: Cursor = "",
    limit: Limit200 = 50,
) -> EntitiesPage:
    """Entities (``:Source`` provenance left out) filtered by label and name/alias text,
    sorted by mentions, first_seen or last_seen, in keyset pages."""
    require_role(request, VIEWER)
    return entities_page(
        label=label or None, q=q or None, sort=sort, cursor=cursor or None, limit=limit
    )


# A node has only the keys of its kind (an entity no ``detail``, a source no ``mentions``).
@router.get(
    "/entities/{label}/{path:name}/neighbourhood",
    response={200: NeighbourhoodOut, **errors(404, 503)},
    exclude_unset=True,
)
def entity_neighbourhood(
    request: HttpRequest,
    label: str,
    name: str,
    depth: Annotated[int, Field(ge=1, le=2)] = 1,
    limit: Annotated[int, Field(ge=1, le=NEIGHBOURHOOD_MAX)] = 60,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Nodes and edges around an entity at depth 1 or 2, at most ``limit`` entities (most
    mentioned first; ``offset`` pages through the direct neighbours), with the centre's
    ``:Source`` provenance as ``kind="source"`` nodes."""
    require_role(request, VIEWER)
    found = selectors.neighbourhood(label=label, name=name, depth=depth, limit=limit, offset=offset)
    return found.as_json()


@router.get("/entities/{label}/{path:name}", response={200: EntityOut, **errors(404, 503)})
def entity(request: HttpRequest, label: str, name: str) -> EntityDetail:
    """One entity by (label, name) with its relationships, provenance and the notes that
    name it."""
    require_role(request, VIEWER)
    return entity_detail(label=label, name=name)


@router.post("/entities/search", response={200: EntitySearchOut, **errors(503)})
def entities_search(request: HttpRequest, body: EntitySearchIn) -> EntitySearch:
    """Semantic search over entities' ``"name: description"`` embeddings; 422 when the
    configured model's dimension matches none of them."""
    require_role(request, VIEWER)
    return search_entities(query=body.query, label=body.label or None, limit=body.limit)


# --- neighbourhood, orphans, lookups ------------------------------------------------------


@router.get("/orphans", response={200: list[OrphanOut], **errors(503)})
def orphans(request: HttpRequest, limit: Limit1000 = 200) -> list[OrphanEntity]:
    """Entities with no relationship to another entity (provenance aside)."""
    require_role(request, VIEWER)
    return selectors.orphans(limit)


@router.get("/lookup", response={200: LookupOut, **errors(404, 409, 503)})
def lookup(request: HttpRequest, name: Name) -> EntityRef:
    """The entity a name alone means; 409 naming the labels when it is ambiguous."""
    require_role(request, VIEWER)
    return selectors.entity_lookup(name)


# --- curation -----------------------------------------------------------------------------


def _state_out(
    state: EntityState, audit_id: int | None = None, warnings: list[str] | None = None
) -> EntityStateOut:
    return EntityStateOut(
        label=state.label,
        name=state.name,
        aliases=list(state.props.get("aliases") or []),
        description=state.props.get("description"),
        audit_id=audit_id,
        warnings=list(warnings or []),
    )


@router.patch(
    "/entities/{label}/{path:name}", response={200: EntityStateOut, **errors(404, 409, 503)}
)
def entity_patch(
    request: HttpRequest, label: str, name: str, body: EntityPatchIn, dry_run: bool = False
) -> EntityStateOut:
    """Edit the description and/or rename (``name``; the old name becomes an alias, 409
    when the label has that name already). Both re-embed ``"name: description"``.
    ``dry_run`` answers the entity as it would be and writes nothing; a rename's
    ``warnings`` say what the agent does with the old name."""
    require_role(request, CURATOR)
    done = services.entity_update(
        actor=Actor.from_request(request),
        label=label,
        name=name,
        description=body.description,
        new_name=body.name,
        dry_run=dry_run,
    )
    return _state_out(done.state, done.audit_id, done.warnings)


@router.post("/entities/merge", response={200: MergeOut, **errors(404, 409, 503)})
def entity_merge(request: HttpRequest, body: MergeIn) -> services.MergeOutcome:
    """Merge ``source`` into ``target``. With ``dry_run`` nothing is written and the
    answer is the preview; without, the same plan is applied and audited."""
    require_role(request, CURATOR)
    return services.entity_merge(
        actor=Actor.from_request(request),
        source=(body.source.label, body.source.name),
        target=(body.target.label, body.target.name),
        description=body.description,
        dry_run=body.dry_run,
    )


@router.delete("/entities/{label}/{path:name}", response={200: DeleteOut, **errors(404, 409, 503)})
def entity_delete(
    request: HttpRequest, label: str, name: str, dry_run: bool = False
) -> services.DeleteOutcome:
    """Delete an entity with its relationships; ``dry_run`` previews the impact
    (relationships removed, entities left orphaned)."""
    require_role(request, CURATOR)
    return services.entity_delete(
        actor=Actor.from_request(request), label=label, name=name, dry_run=dry_run
    )


def _relationship_out(done: services.Updated[RelationshipState]) -> RelationshipOut:
    state = done.state
    return RelationshipOut(
        audit_id=done.audit_id,
        type=state.type,
        start=RelationshipEndOut(label=state.start.label, name=state.start.key),
        end=RelationshipEndOut(label=state.end.label, name=state.end.key),
        properties={k: str(v) for k, v in state.props.items()},
    )


@router.patch("/relationships", response={200: RelationshipOut, **errors(404, 409, 503)})
def relationship_patch(request: HttpRequest, body: RelationshipPatchIn) -> RelationshipOut:
    """Edit ``(start)-[:type]->(end)``: description, evidence, notes (empty removes),
    confidence, or a ``new_type``."""
    require_role(request, CURATOR)
    changes = body.dict(include={"description", "evidence", "notes", "confidence"})
    done = services.relationship_update(
        actor=Actor.from_request(request),
        start=(body.start.label, body.start.name),
        rel_type=body.type,
        end=(body.end.label, body.end.name),
        new_type=body.new_type,
        changes={k: v for k, v in changes.items() if k in body.model_fields_set},
    )
    return _relationship_out(done)


@router.delete("/relationships", response={200: RelationshipOut, **errors(404, 409, 503)})
def relationship_delete(
    request: HttpRequest,
    start_label: Label,
    start_name: Name,
    type: Label,
    end_label: Label,
    end_name: Name,
) -> RelationshipOut:
    """Delete ``(start)-[:type]->(end)``; the answer is what was deleted."""
    require_role(request, CURATOR)
    done = services.relationship_delete(
        actor=Actor.from_request(request),
        start=(start_label, start_name),
        rel_type=type,
        end=(end_label, end_name),
    )
    return _relationship_out(done)


@router.get("/duplicates", response={200: list[DuplicateEntitiesOut], **errors(503)})
def duplicates(
    request: HttpRequest, threshold: Similarity | None = None, limit: Limit1000 = 100
) -> list[DuplicateCandidate]:
    """Duplicate-entity candidates: same name under different labels, or similar
    embeddings; pairs called not duplicates are left out."""
    require_role(request, VIEWER)
    return selectors.duplicate_candidates(threshold=threshold, limit=limit)


# exclude_unset: a 201 names the pair as it was sent (label, name), without ``mentions``.
@router.post(
    "/duplicates/verdict",
    response={200: MergeOut, 201: DuplicateEntitiesOut, **errors(404, 409, 503)},
    exclude_unset=True,
)
def duplicates_verdict(request: HttpRequest, body: DuplicateEntitiesVerdictIn) -> Any:
    """``merge`` (``keep`` says which survives; answers the merge) or ``not_duplicate``
    (remembered; 201)."""
    require_role(request, CURATOR)
    result = services.entity_pair_verdict(
        actor=Actor.from_request(request),
        a=(body.a.label, body.a.name),
        b=(body.b.label, body.b.name),
        verdict=body.verdict,
        keep=body.keep,
    )
    if isinstance(result, services.MergeOutcome):
        return Status(200, result)
    a, b = body.a.dict(), body.b.dict()
    return Status(201, {"a": a, "b": b, "reason": services.NOT_DUPLICATE, "similarity": None})
