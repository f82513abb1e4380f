"""JSON front door of the facts store: a ninja router added to ``qqweb.api`` under
``/facts``. The viewer role reads, the curator writes. Every write answers with its
preview (what the agent would do with the result); one that would also archive facts not
listed in ``archive`` answers 409 with that preview and writes nothing. The archive,
vanished facts, contradictions and pair actions are in ``api_curation.py``."""

from __future__ import annotations

from dataclasses import asdict

from django.http import HttpRequest
from ninja import Field, Query, Router, Schema, Status

from memory_app.facts import selectors, services
from memory_app.facts.lib import MISSING
from memory_app.facts.lib.lint import agent_broken
from memory_app.facts.plan_effects import deletion_effect, next_start_effect
from memory_app.facts.schemas import (
    DeleteQuery,
    FactActionOut,
    FactCreateIn,
    FactDeleteIn,
    FactDetailOut,
    FactEditIn,
    FactId,
    FactOut,
    FactsPageOut,
    FindingOut,
    LintOut,
    NeighbourOut,
    NextStartOut,
)
from memory_app.facts.shapes import guarded_action, json_value, pair_out
from qqweb.lib.actors import Actor
from qqweb.lib.api_types import Cursor, Limit200, SearchText, errors
from qqweb.lib.auth import CURATOR, VIEWER, require_role
from qqweb.recall.effect_schemas import effect_out
from qqweb.recall.lost_pins import ConfirmLostPins

router = Router(tags=["facts"])


class FactsQuery(Schema):
    q: SearchText = ""
    embedding: str = Field("", max_length=10, description="ok, missing or invalid")
    legacy: bool = False
    next_start: bool = False
    cursor: Cursor | None = None
    limit: Limit200 = 50


@router.get("/facts", response={200: FactsPageOut, **errors(404, 503)})
def facts_list(request: HttpRequest, query: Query[FactsQuery]) -> FactsPageOut:
    """Newest first on ``(timestamp, _id)``; ``next_cursor`` gives the next page."""
    require_role(request, VIEWER)
    embedding = query.embedding if query.embedding in selectors.EMBEDDING_FILTERS else ""
    listing = selectors.facts_list(
        text=query.q,
        embedding=embedding,
        legacy=query.legacy,
        next_start=query.next_start,
        cursor=query.cursor,
        limit=query.limit,
    )
    return FactsPageOut(
        items=[
            FactOut(
                id=row.id,
                kind=row.kind,
                content=row.text,
                timestamp=json_value(row.timestamp) if row.timestamp is not MISSING else None,
                embedding=row.embedding,
                legacy=row.legacy,
                deleted_at_next_start=row.deleted_at_next_start,
                anchor_id=row.anchor_id,
            )
            for row in listing.rows
        ],
        next_cursor=listing.next_cursor,
        total=listing.total,
        next_start_deletions=listing.next_start_deletions,
        breaks=listing.breaks,
    )


@router.get("/facts/next-start", response={200: NextStartOut, **errors(404, 503)})
def facts_next_start(request: HttpRequest) -> NextStartOut:
    """What the agent hard-deletes at its next start, pair by pair (its cleanup, exactly:
    float64 cosine >= 0.95, oldest ``timestamp`` first, greedy). ``borderline``: within
    1e-6 of 0.95; ``tie``: equal timestamps (the agent keeps either one)."""
    require_role(request, VIEWER)
    review = selectors.next_start_review()
    plan = review.plan
    return NextStartOut(
        aborted=plan.aborted,
        aborted_by=[f.hex_id for f in plan.aborted_by],
        considered=plan.considered,
        deletions=[pair_out(row.pair, row.verdict) for row in review.rows],
        near_misses=[pair_out(d) for d in plan.near_misses],
        pins=effect_out(next_start_effect(plan)),
    )


@router.get("/facts/lint", response={200: LintOut, **errors(404, 503)})
def facts_lint(request: HttpRequest) -> LintOut:
    """Every document or index that breaks the agent (``breaks``) or bends what it does."""
    require_role(request, VIEWER)
    findings = selectors.facts_lint()
    return LintOut(
        agent_broken=agent_broken(findings),
        findings=[FindingOut(**asdict(f)) for f in findings],
    )


@router.get("/facts/{fact_id}", response={200: FactDetailOut, **errors(404, 503)})
def fact_get(request: HttpRequest, fact_id: FactId) -> FactDetailOut:
    """One document: every field but the vector, the vector's dimension and norm, its
    nearest facts (``duplicate`` >= 0.95, ``similar`` >= 0.85), and the cleanup pairs it
    is in."""
    require_role(request, VIEWER)
    detail = selectors.fact_detail(fact_id)
    doc = detail.doc.to_document()
    doc.pop("content_embedding", None)
    return FactDetailOut(
        id=detail.doc.hex_id,
        kind=detail.doc.kind,
        id_time=detail.id_time,
        timestamp=json_value(detail.doc.timestamp) if detail.doc.timestamp is not MISSING else None,
        document={k: json_value(v) for k, v in doc.items()},
        embedding=detail.embedding,
        dimension=detail.dimension,
        norm=detail.norm,
        neighbours=[
            NeighbourOut(id=n.fact.hex_id, content=n.fact.text, score=n.score, mark=n.mark)
            for n in detail.neighbours
        ],
        deleted_by=pair_out(detail.deleted_by) if detail.deleted_by else None,
        deletes=[pair_out(d) for d in detail.deletes],
        findings=[FindingOut(**asdict(f)) for f in detail.findings],
    )


@router.post("/facts", response={201: FactActionOut, 200: FactActionOut, **errors(404, 409, 503)})
def fact_create(
    request: HttpRequest, payload: FactCreateIn, confirm_lost_pins: ConfirmLostPins = False
) -> Status:
    """A new fact in the agent's exact shape, embedded with all-MiniLM-L6-v2 (any other
    model: 422). ``preview.add.refused``: the agent itself would not have saved it. 409
    ``would_lose_pins`` when the facts its guard archives with it hold a pinned recall,
    unless ``confirm_lost_pins=true``."""
    require_role(request, CURATOR)
    actor = Actor.from_request(request)
    out = guarded_action(
        lambda dry: services.fact_create(
            actor=actor, content=payload.content, confirm=payload.archive, dry_run=dry
        ),
        dry_run=payload.dry_run,
        confirmed=confirm_lost_pins,
    )
    return Status(201 if out.applied else 200, out)


@router.patch("/facts/{fact_id}", response={200: FactActionOut, **errors(404, 409, 503)})
def fact_edit(
    request: HttpRequest,
    fact_id: FactId,
    payload: FactEditIn,
    confirm_lost_pins: ConfirmLostPins = False,
) -> FactActionOut:
    """In place: guarded on ``expected_content`` (409 ``stale`` when the fact changed, or
    is gone: ``replaced_by`` names the fact in its place when one is found, as the agent's
    update replaces a fact under a new id), ``_id`` and ``timestamp`` kept. 404 when no
    such fact is known at all. 409 ``would_lose_pins`` when the facts its guard archives
    with it hold a pinned recall, unless ``confirm_lost_pins=true``."""
    require_role(request, CURATOR)
    actor = Actor.from_request(request)
    return guarded_action(
        lambda dry: services.fact_edit(
            actor=actor,
            fact_id=fact_id,
            expected_content=payload.expected_content,
            content=payload.content,
            confirm=payload.archive,
            dry_run=dry,
        ),
        dry_run=payload.dry_run,
        confirmed=confirm_lost_pins,
    )


@router.delete("/facts/{fact_id}", response={200: FactActionOut, **errors(404, 409, 503)})
def fact_delete(request: HttpRequest, fact_id: FactId, query: Query[DeleteQuery]) -> FactActionOut:
    """Archived in qqweb's table first, then deleted; restorable. ``archive``,
    ``dry_run`` and ``confirm_lost_pins`` in the query string: at most 200 ids fit a URL
    (422 past it); the same delete with a longer list is ``POST
    /api/facts/{fact_id}/delete``. A deletion that would lose a pinned recall (the fact's
    own, or one of the facts its guard archives with it) answers 409 ``would_lose_pins``
    naming each and deletes nothing, unless ``confirm_lost_pins=true``; a dry run says
    so in ``pins``."""
    return _delete(request, fact_id, query.archive, query.dry_run, query.confirm_lost_pins)


@router.post("/facts/{fact_id}/delete", response={200: FactActionOut, **errors(404, 409, 503)})
def fact_delete_post(
    request: HttpRequest,
    fact_id: FactId,
    payload: FactDeleteIn,
    confirm_lost_pins: ConfirmLostPins = False,
) -> FactActionOut:
    """``DELETE /api/facts/{fact_id}`` with its options in a JSON body, for an ``archive``
    list a URL cannot carry (up to 1000 ids); ``confirm_lost_pins`` in the query string,
    as on every write."""
    return _delete(request, fact_id, payload.archive, payload.dry_run, confirm_lost_pins)


def _delete(
    request: HttpRequest, fact_id: str, archive: list[str], dry_run: bool, confirmed: bool
) -> FactActionOut:
    require_role(request, CURATOR)
    actor = Actor.from_request(request)
    return guarded_action(
        lambda dry: services.fact_delete(
            actor=actor, fact_id=fact_id, confirm=archive, dry_run=dry
        ),
        dry_run=dry_run,
        confirmed=confirmed,
        pins=deletion_effect(fact_id),
    )
