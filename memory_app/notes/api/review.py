"""The near-duplicate review queue."""

from __future__ import annotations

from django.http import HttpRequest
from ninja import Status

from memory_app.notes import selectors, services
from memory_app.notes.api.common import router
from memory_app.notes.job_params import DedupScanParams
from memory_app.notes.models import ReviewPair
from memory_app.notes.review_schemas import (
    MergePreviewIn,
    MergePreviewOut,
    ReviewPairOut,
    ReviewVerdictIn,
    ReviewVerdictOut,
    SuggestionIn,
    SuggestionOut,
)
from memory_app.notes.schemas import RunOut
from memory_app.notes.selectors.verdict_effects import review_verdict_effects
from qqweb.jobs.starting import job_start
from qqweb.lib.actors import Actor
from qqweb.lib.api_types import Limit1000, ShortText, errors
from qqweb.lib.auth import ADMIN, CURATOR, VIEWER, require_role
from qqweb.lib.errors import InvalidInput
from qqweb.lib.judge.verdicts import verdict
from qqweb.recall.effect_schemas import effect_out
from qqweb.recall.lost_pins import ConfirmLostPins, pins_guarded


@router.get("/duplicates", response={200: list[ReviewPairOut], **errors()}, tags=["duplicates"])
def duplicates_list(
    request: HttpRequest, status: ShortText = "pending", limit: Limit1000 = 100
) -> list[ReviewPair]:
    """The review queue, most similar first."""
    require_role(request, VIEWER)
    if status not in dict(ReviewPair.STATUSES):
        raise InvalidInput("status", "must be pending, merged, rejected or skipped")
    return list(ReviewPair.objects.filter(status=status)[:limit])


@router.post("/duplicates/scan", response={202: RunOut, **errors(409, 503)}, tags=["duplicates"])
def duplicates_scan(request: HttpRequest, body: DedupScanParams) -> Status:
    """Start a dedup scan in the worker (admin); poll ``/api/maintenance/runs/{id}``."""
    require_role(request, ADMIN)
    run = job_start(kind="dedup_scan", actor=Actor.from_request(request), params=body)
    return Status(202, run)


@router.post(
    "/duplicates/{pair_id}/verdict",
    response={200: ReviewPairOut, **errors(404, 409, 503)},
    tags=["duplicates"],
)
def duplicates_verdict(
    request: HttpRequest,
    pair_id: int,
    body: ReviewVerdictIn,
    confirm_lost_pins: ConfirmLostPins = False,
) -> ReviewPair:
    """merge (into ``primary_id``, optionally with ``content``), supersede ("keep the
    newer text": the note written later survives with its text, the older one is
    archived; 400 when neither is newer), not_duplicate (remembered until a text
    changes) or skip. Undoing a merge or a supersede (``POST /api/audit/{event_id}/undo``)
    puts the pair back in the queue. Without ``primary_id`` the merge keeps the
    agent's primary, the note of higher importance (ties: more reads, then older), as
    auto-consolidation does; a pair whose texts contradict each other (one negates the
    other) is merged only with ``primary_id`` (400 without). A pair gets one verdict:
    409 ``pair_decided`` when it has one already, or another request is giving it one
    right now. A merge or a supersede that would lose a pinned recall (its survivor is not
    recalled for the pin's question) answers 409 ``would_lose_pins`` and writes nothing,
    unless ``confirm_lost_pins=true``."""
    require_role(request, CURATOR)
    with pins_guarded(
        lambda: review_verdict_effects(
            pair_id=pair_id, verdict=body.verdict, primary_id=body.primary_id, content=body.content
        ),
        confirmed=confirm_lost_pins,
    ):
        return services.review_verdict(
            actor=Actor.from_request(request),
            pair_id=pair_id,
            verdict=body.verdict,
            primary_id=body.primary_id,
            content=body.content,
        )


@router.post(
    "/duplicates/{pair_id}/preview",
    response={200: MergePreviewOut, **errors(404, 503)},
    tags=["duplicates"],
)
def duplicates_preview(request: HttpRequest, pair_id: int, body: MergePreviewIn) -> MergePreviewOut:
    """What a merge verdict with this body would write, and what it (and a supersede) would
    do to the pinned recalls (``lost``: each pin it loses, with why), as the Review page
    shows before its buttons. Nothing is written. Without ``primary_id`` it keeps the
    page's choice (the newer note of a possible update), which a verdict without
    ``primary_id`` does not: send the verdict the answer's ``primary_id``."""
    require_role(request, VIEWER)
    preview = selectors.review_preview(
        pair_id=pair_id, primary_id=body.primary_id, content=body.content
    )
    item, pins = preview.item, preview.pins
    said = item.verdict or verdict(None, item.a.content, item.b.content, item.changes)
    return MergePreviewOut(
        pair=ReviewPairOut.from_orm(item.pair),
        primary_id=item.plan.primary_id,
        secondary_id=item.plan.secondary_id,
        content=item.merged_preview.content,
        newer_id=item.newer_id,
        possible_update=item.possible_update,
        contradiction=item.contradiction,
        verdict=ReviewVerdictOut.of(said, merged_both=item.merged_both),
        pins_merge=effect_out(pins.merge),
        pins_supersede=None if pins.supersede is None else effect_out(pins.supersede),
    )


@router.post(
    "/duplicates/back", response={200: ReviewPairOut, **errors(400, 503)}, tags=["duplicates"]
)
def duplicates_back(request: HttpRequest) -> ReviewPair:
    """Take back the caller's latest verdict (a merge or supersede is undone through the
    audit log, 400 with the reason when that is refused); the pair is pending again."""
    require_role(request, CURATOR)
    return services.review_back(actor=Actor.from_request(request))


@router.post(
    "/duplicates/{pair_id}/suggestion",
    response={200: SuggestionOut, **errors(404, 503)},
    tags=["duplicates"],
)
def duplicates_suggestion(
    request: HttpRequest, pair_id: int, body: SuggestionIn
) -> selectors.MergeSuggestion:
    """The merged text the configured LLM (``QQ_LLM_URL``) suggests for a pending pair
    (kept ``primary_id``, or the agent's choice). Nothing is written: send it back as the
    ``content`` of a merge verdict. 400 when no LLM is configured, 503 when it does not
    answer."""
    require_role(request, CURATOR)
    return selectors.review_llm_text(pair_id=pair_id, primary_id=body.primary_id)
