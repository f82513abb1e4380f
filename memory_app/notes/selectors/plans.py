"""Reads of the plans the schedule made: which wait for an admin, which expired.

A scheduled run of a destructive job (decay, archival, archive purge, auto-consolidation)
is a dry run: it keeps its plan and waits for an admin to apply it (unless its schedule
applies on its own, and even then only up to QQ_SCHEDULE_MAX_SHARE). The Overview and
the Jobs page say "A plan waits: Archive 347 of 501 notes (69%)".

A plan expires when the memory changed under it: one of its notes is no longer as it was
planned, by the very guard its apply would check (the note's ``updated_at``; for the
decay, the one read with the importance), so the curator is not asked to approve what the
notes no longer are. Only the notes changed since the plan was made
(``note_ids_changed_since``, less the clock margin the agent's own clock needs) are read,
and only the plan's items that name them are read (searched in the database:
``qqweb.jobs.plans.plan_items_naming``), so the check costs the recent changes, not the
plan's size. A purge plan is of archive
lines: it does not expire (its apply keeps the lines restored since, and counts them).

The Overview and the Jobs page ask on every render; what they show of a plan (its
summary, which walks the plan, and how many of its notes changed, which reads the notes
changed since it) is kept in the cache for ``WAITING_CACHE_S``, so a page costs one query
on qqweb's own table and the memory is read at most once a minute however often the pages
are opened. Their "A plan expired" may therefore come up to a minute after the change;
the run's own page and the apply check at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.cache import cache

from memory_app.notes.job_plans import plan_from_json
from memory_app.notes.selectors.jobs import plan_summary
from memory_app.notes.stores import notes_store
from qqweb.jobs.models import Run
from qqweb.jobs.plans import plan_items_naming
from qqweb.lib.errors import StoreUnavailable

SCHEDULE_ACTOR = "job:schedule"  # Actor.job("schedule").label: who starts scheduled runs
PLANNED_KINDS = ("decay", "archival", "archive_purge", "auto_consolidation")
WAITING_CACHE_S = 60  # how long the pages' summary and changed count of a plan are kept


@dataclass(frozen=True)
class WaitingPlan:
    run: Run
    summary: str  # "Archive 347 of 501 notes (69%)"
    changed: int  # planned notes changed since the plan: expired when above 0
    reason: str  # why an opted-in schedule did not apply it ("" when it was not opted in)

    @property
    def expired(self) -> bool:
        return self.changed > 0

    @property
    def what(self) -> str:
        """The summary inside a sentence: "archive 347 of 501 notes (69%)"."""
        return self.summary[:1].lower() + self.summary[1:]


@dataclass(frozen=True)
class ChangedNote:
    """A note of a plan that changed since the plan was made (why the plan expired)."""

    note_id: str
    text: str  # its first characters now
    updated_at: datetime | None  # when it changed


def plan_changes(run: Run) -> list[ChangedNote]:
    """The plan's notes changed since it was made, the latest change first (none for a
    purge plan). Only the notes changed since the plan are read (module docstring)."""
    if run.plan_size is None or run.kind == "archive_purge" or run.started_at is None:
        return []
    margin = timedelta(seconds=settings.QQ_DEDUP_CLOCK_MARGIN_S)
    since = run.started_at.replace(tzinfo=None) - margin
    recent = notes_store().note_ids_changed_since(since)
    planned: dict[str, datetime | None] = {}
    for item in plan_from_json(run.kind, plan_items_naming(run_id=run.pk, note_ids=recent)):
        planned.update(item.planned_at())
    changed = recent & set(planned)
    docs = notes_store().notes_by_ids(changed)
    notes = [
        ChangedNote(i, docs[i].content[:200], docs[i].updated_at)
        for i in changed
        if i in docs and not _same(docs[i].updated_at, planned[i])
    ]
    return sorted(notes, key=lambda n: (n.updated_at or datetime.min, n.note_id), reverse=True)


def plan_changed_count(run: Run) -> int:
    """How many of the plan's notes changed since it was made (0 for a purge plan)."""
    return len(plan_changes(run))


def _same(a: Any, b: Any) -> bool:
    """The apply's comparison: BSON dates keep milliseconds."""
    if not isinstance(a, datetime) or not isinstance(b, datetime):
        return a == b
    return abs((a.replace(tzinfo=None) - b.replace(tzinfo=None)).total_seconds()) < 0.001


def _latest_scheduled(kind: str) -> Run | None:
    return (
        Run.objects.filter(kind=kind, dry_run=True, started_by=SCHEDULE_ACTOR)
        .exclude(status__in=Run.OPEN)
        .defer("plan")
        .order_by("-created_at", "-pk")
        .first()
    )


def _summary_and_changed(run: Run) -> tuple[str, int]:
    """The plan's summary and how many of its notes changed, kept ``WAITING_CACHE_S``
    (module docstring); the plan itself is loaded only when they are not."""
    key = f"qqweb-plan-waiting:{run.pk}:{run.created_at.timestamp()}"
    kept = cache.get(key)
    if kept is not None:
        return str(kept[0]), int(kept[1])
    run.refresh_from_db(fields=["plan"])
    summary = plan_summary(run)
    try:
        changed = plan_changed_count(run)
    except StoreUnavailable:  # the page still says a plan waits; applying checks again
        return summary, 0
    cache.set(key, (summary, changed), WAITING_CACHE_S)
    return summary, changed


def plans_waiting() -> list[WaitingPlan]:
    """The latest scheduled plan of each destructive job that changes something and no
    run applied (a failed or cancelled application leaves it waiting), expired or not."""
    waiting = []
    for kind in PLANNED_KINDS:
        run = _latest_scheduled(kind)
        if run is None or run.status != Run.DONE or not run.plan_size:
            continue
        applied = run.applications.exclude(status__in=(Run.FAILED, Run.CANCELLED)).exists()
        if applied:
            continue
        reason = str((run.stats or {}).get("waits") or "")
        summary, changed = _summary_and_changed(run)
        waiting.append(WaitingPlan(run, summary, changed, reason))
    return waiting


def plan_expired(*, run: Run) -> list[ChangedNote]:
    """The notes of a scheduled plan changed since it was made, which expire it (none: it
    still holds, or it is a curator's own preview, whose apply skips each changed note
    instead)."""
    if run.started_by != SCHEDULE_ACTOR:
        return []
    try:
        return plan_changes(run)
    except StoreUnavailable:
        return []
