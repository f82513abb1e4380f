"""Reads of the audit log, for the Audit page, a target's history and the API."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import Count

from qqweb.audit.models import AuditEvent
from qqweb.audit.registry import TargetPage, target_pages_finder, undo_role
from qqweb.lib.auth import role_at_least
from qqweb.lib.errors import Unavailable


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


def undo_events(event_id: int) -> list[AuditEvent]:
    """The event an undo of ``event_id`` undoes, if there is one that can be undone."""
    return list(
        AuditEvent.objects.filter(pk=event_id, status=AuditEvent.DONE, undone_at__isnull=True)
    )


def batch_undo_events(batch_id: uuid.UUID) -> list[AuditEvent]:
    """The events of a batch its undo undoes, newest first: done, not undone, not an
    undo themselves."""
    return list(
        AuditEvent.objects.filter(
            batch_id=batch_id,
            status=AuditEvent.DONE,
            undone_at__isnull=True,
            undo_of__isnull=True,
        ).order_by("-id")
    )


def with_target_pages(events: list[AuditEvent]) -> list[AuditEvent]:
    """``events``, each with ``target_page``: where its target is now (a page while it
    exists, or words saying it is gone), asked of the app that registered its target
    type, one question per type for the whole page; None when no app knows the type or
    its store cannot tell now (the target is then shown as its id, with no claim)."""
    by_type: dict[str, list[AuditEvent]] = {}
    for event in events:
        by_type.setdefault(event.target_type, []).append(event)
    pages: dict[int, TargetPage] = {}
    for target_type, group in by_type.items():
        finder = target_pages_finder(target_type)
        if finder is None:
            continue
        try:
            pages.update(finder(group))
        except Unavailable:  # MongoDB, Neo4j down: the ids, no claim
            continue
    for event in events:
        event.target_page = pages.get(event.pk)  # type: ignore[attr-defined]
    return events


@dataclass(frozen=True)
class AuditPage:
    """One page of the audit log, newest first; ``next_before`` continues it."""

    events: list[AuditEvent]
    next_before: int | None
    batch_sizes: dict[uuid.UUID, int]  # events per batch, for the batches on this page


def audit_page(
    *,
    actor: str = "",
    action: str = "",
    target: str = "",
    batch: uuid.UUID | None = None,
    before: int | None = None,
    limit: int = 50,
) -> AuditPage:
    """Events matching the filters (``action`` exactly, as picked from ``audit_actions``;
    ``actor`` and ``target`` as parts), ``limit`` at a time by id, older than ``before``."""
    events = AuditEvent.objects.select_related("undo_of").order_by("-id")
    if actor:
        events = events.filter(actor__icontains=actor)
    if action:
        events = events.filter(action=action)
    if target:
        events = events.filter(target_id__icontains=target)
    if batch:
        events = events.filter(batch_id=batch)
    if before:
        events = events.filter(id__lt=before)
    limit = max(1, min(limit, 500))
    rows = list(events[: limit + 1])
    page = rows[:limit]
    batches = {e.batch_id for e in page}
    sizes = dict(
        AuditEvent.objects.filter(batch_id__in=batches)
        .values_list("batch_id")
        .annotate(n=Count("id"))
        .values_list("batch_id", "n")
    )
    for event in page:
        event.batch_size = sizes.get(event.batch_id, 1)  # type: ignore[attr-defined]
    return AuditPage(page, page[-1].pk if len(rows) > limit else None, sizes)


def audit_actions() -> list[str]:
    """Every action the log holds, for the Action filter's choices."""
    return sorted(set(AuditEvent.objects.values_list("action", flat=True).distinct()))
