"""JSON front door of the facts curation: the next-start pair actions, embedding a legacy
fact, qqweb's archive and restores, the vanished facts and the possible contradictions.
Added to ``qqweb.api`` before the facts router, so ``/facts/archive`` is not read as a
fact id. Viewers read; curators write."""

from __future__ import annotations

from django.http import HttpRequest
from ninja import Router, Status

from memory_app.facts import selectors, services
from memory_app.facts.models import ArchivedFact
from memory_app.facts.plan_effects import resolution_effect
from memory_app.facts.schemas import (
    ArchivedFactOut,
    ContradictionOut,
    FactActionOut,
    FactId,
    PairResolveIn,
    ScanOut,
    VanishedOut,
    VerdictIn,
    WriteOptions,
)
from memory_app.facts.shapes import guarded_action, pair_out
from qqweb.lib.actors import Actor
from qqweb.lib.api_types import errors
from qqweb.lib.auth import CURATOR, VIEWER, require_role
from qqweb.recall.lost_pins import ConfirmLostPins

router = Router(tags=["facts"])


@router.post("/facts/next-start/resolve", response={200: FactActionOut, **errors(404, 409, 503)})
def pair_resolve(
    request: HttpRequest, payload: PairResolveIn, confirm_lost_pins: ConfirmLostPins = False
) -> FactActionOut:
    """Resolve one pair of the next-start plan now: ``keep-older`` (the newer archived),
    ``keep-newer-text`` (the older takes the newer text, keeping its ``_id`` and
    ``timestamp``; the newer archived), ``delete-both`` (both archived). 409
    ``would_lose_pins`` when it would lose a pinned recall, unless
    ``confirm_lost_pins=true``."""
    require_role(request, CURATOR)
    actor = Actor.from_request(request)
    return guarded_action(
        lambda dry: services.pair_resolve(
            actor=actor,
            anchor_id=payload.anchor_id,
            deleted_id=payload.deleted_id,
            how=payload.how,
            confirm=payload.archive,
            dry_run=dry,
        ),
        dry_run=payload.dry_run,
        confirmed=confirm_lost_pins,
        pins=resolution_effect(
            anchor_id=payload.anchor_id, deleted_id=payload.deleted_id, how=payload.how
        ),
    )


@router.post("/facts/{fact_id}/embed", response={200: FactActionOut, **errors(404, 409, 503)})
def fact_embed(
    request: HttpRequest,
    fact_id: FactId,
    payload: WriteOptions,
    confirm_lost_pins: ConfirmLostPins = False,
) -> FactActionOut:
    """Give a legacy fact (no ``content_embedding``) the agent's vector. It carries an old
    ``timestamp``, so it wins the pairs it joins: the preview shows them. 409
    ``would_lose_pins`` when the facts its guard archives hold a pinned recall, unless
    ``confirm_lost_pins=true``."""
    require_role(request, CURATOR)
    actor = Actor.from_request(request)
    return guarded_action(
        lambda dry: services.fact_embed(
            actor=actor, fact_id=fact_id, confirm=payload.archive, dry_run=dry
        ),
        dry_run=payload.dry_run,
        confirmed=confirm_lost_pins,
    )


@router.get("/facts/archive", response={200: list[ArchivedFactOut], **errors(404, 409, 503)})
def archive_list(request: HttpRequest, restored: bool = False) -> list[ArchivedFact]:
    """qqweb's archive of this facts store, newest first."""
    require_role(request, VIEWER)
    return selectors.archived_facts(restored=restored)


@router.post(
    "/facts/archive/{archive_id}/restore", response={200: FactActionOut, **errors(404, 409, 503)}
)
def archive_restore(
    request: HttpRequest,
    archive_id: int,
    payload: WriteOptions,
    confirm_lost_pins: ConfirmLostPins = False,
) -> FactActionOut:
    """Back under its ``_id`` when free (else a new one), with its ``timestamp``. 409
    ``would_lose_pins`` when the facts its guard archives hold a pinned recall, unless
    ``confirm_lost_pins=true``."""
    require_role(request, CURATOR)
    actor = Actor.from_request(request)
    return guarded_action(
        lambda dry: services.fact_restore(
            actor=actor, archive_id=archive_id, confirm=payload.archive, dry_run=dry
        ),
        dry_run=payload.dry_run,
        confirmed=confirm_lost_pins,
    )


@router.get("/facts/vanished", response={200: list[VanishedOut], **errors(404, 409, 503)})
def vanished_list(request: HttpRequest) -> list[VanishedOut]:
    """Facts the agent deleted since qqweb first saw them, with the likely cause."""
    require_role(request, VIEWER)
    return [
        VanishedOut(
            fact_id=s.fact_id,
            content=s.content,
            cause=s.cause,
            related_id=s.related_id,
            related_content=s.related_content,
            score=s.score,
            vanished_at=s.vanished_at,
            archive_id=s.archive_id,
        )
        for s in selectors.vanished_facts()
    ]


@router.post("/facts/vanished/scan", response={200: ScanOut, **errors(404, 409, 503)})
def vanished_scan(request: HttpRequest) -> ScanOut:
    """Run the vanished-facts scan now (beat runs it every QQ_FACTS_SCAN_INTERVAL_S)."""
    require_role(request, CURATOR)
    report = services.vanished_scan_run(actor=Actor.from_request(request))
    return ScanOut(seen=report.seen, new=report.new, vanished=report.vanished)


@router.get(
    "/facts/contradictions", response={200: list[ContradictionOut], **errors(404, 409, 503)}
)
def contradictions(request: HttpRequest, dismissed: bool = False) -> list[ContradictionOut]:
    """Pairs at 0.85-0.95 (the agent keeps both), with remembered verdicts."""
    require_role(request, VIEWER)
    return [
        ContradictionOut(pair=pair_out(c.pair, c.judged), verdict=c.verdict)
        for c in selectors.contradictions(include_dismissed=dismissed)
    ]


@router.post("/facts/contradictions/verdict", response={204: None, **errors(404, 409, 503)})
def contradiction_verdict(request: HttpRequest, payload: VerdictIn) -> Status:
    """Remember ``both-true`` (hidden from the list) or ``contradiction`` for two texts."""
    require_role(request, CURATOR)
    services.contradiction_verdict(
        actor=Actor.from_request(request),
        a_id=payload.a_id,
        b_id=payload.b_id,
        verdict=payload.verdict,
    )
    return Status(204, None)
