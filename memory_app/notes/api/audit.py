"""The audit log and undo, of one action or a whole batch."""

from __future__ import annotations

import uuid
from typing import Any

from django.http import HttpRequest

from memory_app.notes.api.common import router
from memory_app.notes.schemas import AuditEventOut, BatchUndoOut
from qqweb.audit import selectors as audit_selectors
from qqweb.audit import services as audit_services
from qqweb.audit.models import AuditEvent
from qqweb.lib.actors import Actor
from qqweb.lib.api_types import Limit1000, ShortText, errors
from qqweb.lib.auth import CURATOR, VIEWER, require_role
from qqweb.recall.lost_pins import ConfirmLostPins, pins_guarded
from qqweb.recall.undo_effects import undo_effects


@router.get("/audit", response={200: list[AuditEventOut], **errors()}, tags=["audit"])
def audit_list(
    request: HttpRequest,
    actor: ShortText = "",
    action: ShortText = "",
    target: ShortText = "",
    limit: Limit1000 = 100,
) -> list[dict[str, Any]]:
    require_role(request, VIEWER)
    return [
        _event_out(e)
        for e in audit_selectors.audit_events(
            actor=actor, action=action, target=target, limit=limit
        )
    ]


@router.post(
    "/audit/{event_id}/undo", response={200: AuditEventOut, **errors(404, 409, 503)}, tags=["audit"]
)
def audit_undo(
    request: HttpRequest, event_id: int, confirm_lost_pins: ConfirmLostPins = False
) -> dict[str, Any]:
    """Undo one action; 409 with the reason when it cannot be undone. An undo that takes
    a pinned item out again (undoing a restore or an addition) answers 409
    ``would_lose_pins`` naming each pin and undoes nothing, unless
    ``confirm_lost_pins=true``."""
    require_role(request, CURATOR)
    with pins_guarded(
        lambda: undo_effects(audit_selectors.undo_events(event_id)), confirmed=confirm_lost_pins
    ):
        event = audit_services.audit_undo(actor=Actor.from_request(request), event_id=event_id)
    return _event_out(event)


def _event_out(event: AuditEvent) -> dict[str, Any]:
    return {
        "id": event.pk,
        "created_at": event.created_at,
        "actor": event.actor,
        "action": event.action,
        "target_type": event.target_type,
        "target_id": event.target_id,
        "batch_id": str(event.batch_id),
        "status": event.status,
        "detail": event.detail,
        "before": event.before,
        "after": event.after,
        "undone_at": event.undone_at,
        "undo_of": event.undo_of_id,
    }


@router.post(
    "/audit/batches/{batch_id}/undo",
    response={200: BatchUndoOut, **errors(409, 503)},
    tags=["audit"],
)
def audit_batch_undo(
    request: HttpRequest, batch_id: uuid.UUID, confirm_lost_pins: ConfirmLostPins = False
) -> dict[str, Any]:
    """Undo every action of a batch (a bulk action or a run of a job), newest first;
    what cannot be undone is listed with the reason. 409 ``would_lose_pins`` (nothing
    undone) when it would take a pinned item out again, unless ``confirm_lost_pins=true``."""
    require_role(request, CURATOR)
    with pins_guarded(
        lambda: undo_effects(audit_selectors.batch_undo_events(batch_id)),
        confirmed=confirm_lost_pins,
    ):
        undone, refused = audit_services.batch_undo(
            actor=Actor.from_request(request), batch_id=batch_id
        )
    return {"undone": undone, "refused": refused}
