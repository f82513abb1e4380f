"""JSON front door of the knowledge graph: a ninja router added to ``qqweb.api``."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Router, Status

from graph_app import selectors, services
from graph_app.knowledge import GraphUnavailable
from graph_app.knowledge.domain import EntityRef, OrphanEntity
from graph_app.knowledge.errors import InvalidGraphValue
from graph_app.knowledge.states import EntityState, RelationshipState
from graph_app.schemas import (
    CandidateOut,
    DeleteOut,
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
    VerdictIn,
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
from memory_app.schemas import CountOut
from qqweb.actors import Actor
from qqweb.auth import CURATOR, VIEWER, require_role

router = Router(tags=["graph"])


@router.get("/stats", response=GraphStatsOut)
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


@router.get("/entities", response=EntitiesPageOut)
def entities(
    request: HttpRequest,
    label: str = "",
    q: str = "",
    sort: str = "mentions",
    cursor: str = "",
    limit: int = 50,
) -> EntitiesPage:
    """Entities (``:Source`` provenance left out) filtered by label and name/alias text,
    sorted by mentions, first_seen or last_seen, in keyset pages."""
    require_role(request, VIEWER)
    return entities_page(
        label=label or None, q=q or None, sort=sort, cursor=cursor or None, limit=limit
    )


# A node has only the keys of its kind (an entity no ``detail``, a source no ``mentions``).
@router.get(
    "/entities/{label}/{path:name}/neighbourhood", response=NeighbourhoodOut, exclude_unset=True
)
def entity_neighbourhood(
    request: HttpRequest, label: str, name: str, depth: int = 1, limit: int = 60, offset: int = 0
) -> dict[str, Any]:
    """Nodes and edges around an entity at depth 1 or 2, at most ``limit`` entities (most
    mentioned first; ``offset`` pages through the direct neighbours), with the centre's
    ``:Source`` provenance as ``kind="source"`` nodes."""
    require_role(request, VIEWER)
    found = selectors.neighbourhood(label=label, name=name, depth=depth, limit=limit, offset=offset)
    return found.as_json()


@router.get("/entities/{label}/{path:name}", response=EntityOut)
def entity(request: HttpRequest, label: str, name: str) -> EntityDetail:
    """One entity by (label, name) with its relationships, provenance and the notes that
    name it."""
    require_role(request, VIEWER)
    return entity_detail(label=label, name=name)


@router.post("/entities/search", response=EntitySearchOut)
def entities_search(request: HttpRequest, body: EntitySearchIn) -> EntitySearch:
    """Semantic search over entities' ``"name: description"`` embeddings; 422 when the
    configured model's dimension matches none of them."""
    require_role(request, VIEWER)
    return search_entities(query=body.query, label=body.label or None, limit=body.limit)


# --- neighbourhood, orphans, lookups ------------------------------------------------------


@router.get("/orphans", response=list[OrphanOut])
def orphans(request: HttpRequest, limit: int = 200) -> list[OrphanEntity]:
    """Entities with no relationship to another entity (provenance aside)."""
    require_role(request, VIEWER)
    return selectors.orphans(limit)


@router.get("/lookup", response=LookupOut)
def lookup(request: HttpRequest, name: str) -> EntityRef:
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


@router.patch("/entities/{label}/{path:name}", response=EntityStateOut)
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


@router.post("/entities/merge", response=MergeOut)
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


@router.delete("/entities/{label}/{path:name}", response=DeleteOut)
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


@router.patch("/relationships", response=RelationshipOut)
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


@router.delete("/relationships", response=RelationshipOut)
def relationship_delete(
    request: HttpRequest,
    start_label: str,
    start_name: str,
    type: str,
    end_label: str,
    end_name: str,
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


@router.get("/duplicates", response=list[CandidateOut])
def duplicates(
    request: HttpRequest, threshold: float | None = None, limit: int = 100
) -> list[DuplicateCandidate]:
    """Duplicate-entity candidates: same name under different labels, or similar
    embeddings; pairs called not duplicates are left out."""
    require_role(request, VIEWER)
    if threshold is not None and not 0 < threshold <= 1:
        raise InvalidGraphValue("threshold", "must be above 0 and at most 1")
    return selectors.duplicate_candidates(threshold=threshold, limit=limit)


# exclude_unset: a 201 names the pair as it was sent (label, name), without ``mentions``.
@router.post("/duplicates/verdict", response={200: MergeOut, 201: CandidateOut}, exclude_unset=True)
def duplicates_verdict(request: HttpRequest, body: VerdictIn) -> Any:
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
