"""core.md and promotion candidates; the retrieval preview."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from django.http import HttpRequest
from ninja import Status

from memory_app.notes import selectors, services
from memory_app.notes.api.common import router
from memory_app.notes.schemas import (
    CoreOut,
    PromoteIn,
    PromoteOut,
    PromotionCandidateOut,
    RetrievalIn,
    RetrievalOut,
)
from qqweb.lib.actors import Actor
from qqweb.lib.api_types import Limit200, errors
from qqweb.lib.auth import CURATOR, VIEWER, require_role


@router.get("/core", response={200: CoreOut, **errors(503)}, tags=["core"])
def core_get(request: HttpRequest) -> CoreOut:
    """core.md by category and notes.md by section."""
    require_role(request, VIEWER)
    view = selectors.core_view()
    return CoreOut(core=view.core, working=view.working)


@router.get(
    "/core/candidates", response={200: list[PromotionCandidateOut], **errors(503)}, tags=["core"]
)
def core_candidates(
    request: HttpRequest, limit: Limit200 = 50
) -> list[selectors.PromotionCandidate]:
    """Promotion candidates (importance >= 0.8, read >= 3 times) with no verdict yet."""
    require_role(request, VIEWER)
    return selectors.promotion_candidates(limit=limit)


@router.post("/core/promote", response={200: PromoteOut, **errors(404, 409, 503)}, tags=["core"])
def core_promote(request: HttpRequest, body: PromoteIn) -> services.CoreItem:
    require_role(request, CURATOR)
    return services.promotion_approve(
        actor=Actor.from_request(request), note_id=body.note_id, category=body.category
    )


@router.post(
    "/core/candidates/{note_id}/reject", response={204: None, **errors(404, 503)}, tags=["core"]
)
def core_candidate_reject(request: HttpRequest, note_id: str) -> Status:
    require_role(request, CURATOR)
    services.promotion_reject(actor=Actor.from_request(request), note_id=note_id)
    return Status(204, None)


@router.post("/retrieval/preview", response={200: RetrievalOut, **errors(503)}, tags=["retrieval"])
def retrieval_preview(request: HttpRequest, body: RetrievalIn) -> dict[str, Any]:
    """What the agent would inject for ``message``: core notes, the notes at or above
    QQ_CITE_THRESHOLD, the graph entities it names, and the final markdown block."""
    require_role(request, VIEWER)
    preview = selectors.retrieval_preview(message=body.message, limit=body.limit)
    return {
        "markdown": preview.markdown,
        "core": preview.core,
        "notes": preview.notes,
        "entities": [asdict(e) for e in preview.entities],
        "warnings": preview.warnings,
    }
