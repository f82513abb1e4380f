"""Reads of the audit log, for the Audit page, a target's history and the API."""

from __future__ import annotations

from qqweb.audit.models import AuditEvent


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
