"""Writes of the audit log: an event around every mutation, and undo by replaying an
event's ``before`` with the handler registered for its action."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from django.utils import timezone

from qqweb.audit.errors import AuditEventNotFound, UndoForbidden, UndoRefused
from qqweb.audit.models import AuditEvent
from qqweb.audit.registry import settle_check, settled_actions, undo_handler, undo_role
from qqweb.audit.selectors import batch_undo_events
from qqweb.audit.snapshots import from_json, to_json
from qqweb.lib.actors import Actor
from qqweb.lib.auth import role_at_least
from qqweb.lib.processes import process_gone, this_process

logger = logging.getLogger(__name__)

_recording: ContextVar[list[AuditEvent] | None] = ContextVar("audit_recording", default=None)

T = TypeVar("T")


@contextmanager
def events_recorded() -> Iterator[list[AuditEvent]]:
    """The audit events begun inside the block, in order (a view wraps one service call
    in it to offer an Undo of what that call did)."""
    events: list[AuditEvent] = []
    token = _recording.set(events)
    try:
        yield events
    finally:
        _recording.reset(token)


def audit_begin(
    actor: Actor,
    action: str,
    target_type: str,
    target_id: str,
    before: Any,
    batch_id: uuid.UUID | None,
) -> AuditEvent:
    event = AuditEvent.objects.create(
        actor=actor.label,
        actor_user_id=actor.user_id,
        action=action,
        target_type=target_type,
        target_id=target_id,
        before=to_json(before),
        batch_id=batch_id or uuid.uuid4(),
    )
    recording = _recording.get()
    if recording is not None:
        recording.append(event)
    return event


def audited(event: AuditEvent, work: Callable[[], T]) -> T:
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


def undo_allowed(*, role: str | None, event: AuditEvent) -> bool:
    """May someone acting with ``role`` undo ``event``? Only with the role it needed."""
    return role_at_least(role, undo_role(event.action, event.actor))


def _access_undo(actor: Actor, event: AuditEvent) -> None:
    if not undo_allowed(role=actor.role, event=event):
        raise UndoForbidden(event.action, undo_role(event.action, event.actor))


def audit_undo(*, actor: Actor, event_id: int, undo_batch: uuid.UUID | None = None) -> AuditEvent:
    """Undo one action by replaying its ``before``; the undo is recorded in the action's
    batch, or in ``undo_batch`` (a run's undo: a batch of its own). Forbidden
    (UndoForbidden, 403) unless ``actor`` holds the role the action needed; refused, with
    the reason, when it was undone already (or another request is undoing it right now),
    did not complete, or its target changed since. An action is undone once: the undo
    first claims the event (:func:`_claim_undo`) and gives it back when it fails."""
    event = AuditEvent.objects.filter(pk=event_id).first()
    if event is None:
        raise AuditEventNotFound(event_id)
    _access_undo(actor, event)
    if event.status != AuditEvent.DONE:
        raise UndoRefused(f"this action is {event.status}, there is nothing to undo")
    handler = undo_handler(event.action)
    if handler is None:
        raise UndoRefused(f"{event.action} cannot be undone")
    claimed = _claim_undo(event)
    try:
        before, after = from_json(event.before), from_json(event.after)
        undo_event = audit_begin(
            actor,
            f"undo.{event.action}",
            event.target_type,
            event.target_id,
            after,
            undo_batch or event.batch_id,
        )
        undo_event.undo_of = event
        undo_event.save(update_fields=["undo_of"])
        audited(undo_event, lambda: handler(before, after))
    except BaseException:
        AuditEvent.objects.filter(pk=event.pk, undone_at=claimed).update(
            undone_at=None, undo_process=""
        )
        raise
    event.undone_at = claimed
    return undo_event


def _claim_undo(event: AuditEvent) -> datetime:
    """Mark ``event`` undone before its undo runs, with one conditional UPDATE (only while
    ``undone_at`` is empty: atomic on SQLite and PostgreSQL alike), so that of two undos at
    once (two clicks, two curators, Back on the Review page twice) one replays it and the
    other is refused. An undo whose process stopped half-way (its pid gone from this host,
    or its undo event closed failed by the reaper) may be tried again at once."""
    now = timezone.now()
    mine = {"undone_at": now, "undo_process": this_process()}
    if AuditEvent.objects.filter(pk=event.pk, undone_at__isnull=True).update(**mine):
        return now
    held = AuditEvent.objects.filter(pk=event.pk).values("undone_at", "undo_process").first()
    last = event.undo_events.order_by("-id").first()
    if last is not None and last.status == AuditEvent.DONE:
        raise UndoRefused("this action was undone already")
    if held is None:
        raise AuditEventNotFound(event.pk)
    failed = last is not None and last.status == AuditEvent.FAILED
    stopped = failed or process_gone(held["undo_process"])
    if stopped and AuditEvent.objects.filter(pk=event.pk, **held).update(**mine):
        return now
    raise UndoRefused("this action is being undone right now (another request); reload")


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
    undo_batch: uuid.UUID | None = None,
) -> tuple[int, list[str]]:
    """Undo every action of a batch, newest first. Returns (undone, reasons refused).
    ``progress(done, total)`` is called after each event (a job stops there when it is
    cancelled: what is undone stays undone, the rest can be undone later). Forbidden as a
    whole, before anything is undone, when one of its actions needs a role ``actor`` does
    not hold. ``undo_batch``: record the undos in that batch (a run's undo, whose changes
    are a batch of their own), not in ``batch_id``."""
    events = batch_undo_events(batch_id)
    for event in events:
        _access_undo(actor, event)
    undone, refused = 0, []
    for index, event in enumerate(events, start=1):
        try:
            audit_undo(actor=actor, event_id=event.pk, undo_batch=undo_batch)
            undone += 1
        except UndoRefused as e:
            refused.append(f"{event.target_id}: {e.reason}")
        if progress is not None:
            progress(index, len(events))
    return undone, refused


SETTLED = (
    "its process stopped after the change and before it said so; the reaper found the "
    "change whole in the store"
)
SETTLE_AT_MOST = 500


def audit_close_pending(*, older_than: datetime, reason: str) -> int:
    """Close the events still pending that were begun before ``older_than``: the process
    that began them stopped before it recorded the outcome. An event whose action has a
    settle check (``register_settle``) ends done, and undoable, when the check finds its
    change whole in the store and no retry (a later event of the same action on the same
    target and state) claims it; every other one ends failed, with ``reason``. Returns
    how many were closed."""
    stale = AuditEvent.objects.filter(status=AuditEvent.PENDING, created_at__lt=older_than)
    closed = 0
    for event in stale.filter(action__in=settled_actions()).order_by("id")[:SETTLE_AT_MOST]:
        after = _settled_after(event)
        if after is not None:
            closed += AuditEvent.objects.filter(pk=event.pk, status=AuditEvent.PENDING).update(
                status=AuditEvent.DONE, after=to_json(after), detail=SETTLED
            )
    return closed + stale.update(status=AuditEvent.FAILED, detail=reason[:2000])


def _settled_after(event: AuditEvent) -> Any:
    """What the settle check of ``event`` found, or None (no change, a part of it, a
    retry that owns it: a later event of the same action on the same state, or a check
    that failed: logged)."""
    check = settle_check(event.action)
    later = AuditEvent.objects.filter(
        action=event.action, target_id=event.target_id, pk__gt=event.pk
    ).order_by("id")[:SETTLE_AT_MOST]
    if check is None or any(retry.before == event.before for retry in later):
        return None
    try:
        return check(from_json(event.before))
    except Exception:
        logger.exception("the settle check of audit event %s failed", event.pk)
        return None
