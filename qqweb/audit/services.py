"""Writes of the audit log: an event around every mutation, and undo by replaying an
event's ``before`` with the handler registered for its action."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.utils import timezone

from qqweb.actors import Actor
from qqweb.audit.errors import UndoRefused
from qqweb.audit.models import AuditEvent
from qqweb.audit.registry import undo_handler
from qqweb.audit.snapshots import from_json, to_json


def audit_begin(
    actor: Actor,
    action: str,
    target_type: str,
    target_id: str,
    before: Any,
    batch_id: uuid.UUID | None,
) -> AuditEvent:
    return AuditEvent.objects.create(
        actor=actor.label,
        actor_user_id=actor.user_id,
        action=action,
        target_type=target_type,
        target_id=target_id,
        before=to_json(before),
        batch_id=batch_id or uuid.uuid4(),
    )


def audited(event: AuditEvent, work: Callable[[], Any]) -> Any:
    """Run ``work``; record its result as ``after`` (done) or the error (failed)."""
    try:
        after = work()
    except Exception as e:
        event.status = AuditEvent.FAILED
        event.detail = str(e)[:2000]
        event.save(update_fields=["status", "detail"])
        raise
    event.after = to_json(after)
    event.status = AuditEvent.DONE
    event.save(update_fields=["after", "status"])
    return after


def audit_undo(*, actor: Actor, event_id: int) -> AuditEvent:
    """Undo one action by replaying its ``before``. Refused, with the reason, when it was
    undone already, did not complete, or its target changed since."""
    event = AuditEvent.objects.filter(pk=event_id).first()
    if event is None:
        raise UndoRefused(f"there is no audit event {event_id}")
    if event.undone_at is not None:
        raise UndoRefused("this action was undone already")
    if event.status != AuditEvent.DONE:
        raise UndoRefused(f"this action is {event.status}, there is nothing to undo")
    handler = undo_handler(event.action)
    if handler is None:
        raise UndoRefused(f"{event.action} cannot be undone")
    before, after = from_json(event.before), from_json(event.after)
    undo_event = audit_begin(
        actor, f"undo.{event.action}", event.target_type, event.target_id, after, event.batch_id
    )
    undo_event.undo_of = event
    undo_event.save(update_fields=["undo_of"])
    audited(undo_event, lambda: handler(before, after))
    event.undone_at = timezone.now()
    event.save(update_fields=["undone_at"])
    return undo_event


@dataclass
class BulkResult:
    batch_id: uuid.UUID
    action: str
    done: list[str]
    failed: list[tuple[str, str]]


def batch_undo(
    *,
    actor: Actor,
    batch_id: uuid.UUID,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[int, list[str]]:
    """Undo every action of a batch, newest first. Returns (undone, reasons refused).
    ``progress(done, total)`` is called after each event (a job stops there when it is
    cancelled: what is undone stays undone, the rest can be undone later)."""
    events = list(
        AuditEvent.objects.filter(
            batch_id=batch_id,
            status=AuditEvent.DONE,
            undone_at__isnull=True,
            undo_of__isnull=True,
        )
        .order_by("-id")
        .values_list("pk", "target_id")
    )
    undone, refused = 0, []
    for index, (event_id, target_id) in enumerate(events, start=1):
        try:
            audit_undo(actor=actor, event_id=event_id)
            undone += 1
        except UndoRefused as e:
            refused.append(f"{target_id}: {e.reason}")
        if progress is not None:
            progress(index, len(events))
    return undone, refused


def audit_close_pending(*, older_than: datetime, reason: str) -> int:
    """Mark failed, with ``reason``, the events still pending that were begun before
    ``older_than``: the process that began them stopped before it recorded the outcome.
    Returns how many were closed."""
    return AuditEvent.objects.filter(status=AuditEvent.PENDING, created_at__lt=older_than).update(
        status=AuditEvent.FAILED, detail=reason[:2000]
    )
