"""Reads of the audit log, for the Audit page, a target's history and the API."""

from __future__ import annotations

from collections.abc import Iterable

from qqweb.audit.models import AuditEvent
from qqweb.audit.registry import undo_role
from qqweb.auth import role_at_least


def audit_events(
    *, actor: str = "", action: str = "", target: str = "", limit: int = 100
) -> list[AuditEvent]:
    events = AuditEvent.objects.select_related("undo_of")
    if actor:
        events = events.filter(actor__icontains=actor)
    if action:
        events = events.filter(action=action)
    if target:
        events = events.filter(target_id__icontains=target)
    return list(events[: max(1, min(limit, 500))])


def target_history(*, target_id: str, limit: int = 50) -> list[AuditEvent]:
    """The events about exactly ``target_id``, newest first."""
    return list(AuditEvent.objects.filter(target_id=target_id)[:limit])


def undoable_by(*, events: Iterable[AuditEvent], role: str | None) -> set[int]:
    """The ids of ``events`` someone acting with ``role`` may undo now: done, not undone,
    not an undo themselves, and needing no higher role than ``role``."""
    return {
        e.pk
        for e in events
        if e.status == AuditEvent.DONE
        and e.undone_at is None
        and e.undo_of_id is None
        and role_at_least(role, undo_role(e.action, e.actor))
    }
