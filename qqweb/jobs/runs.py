"""The run lifecycle: a row per run of a job, with its progress, for pages to poll;
cancelling one; and the reaper that closes the runs no worker will ever finish."""

from __future__ import annotations

from collections.abc import Collection
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from qqweb.audit.services import audit_close_pending
from qqweb.jobs.errors import RunNotFound, RunRefused
from qqweb.jobs.models import Run
from qqweb.lib.actors import Actor

# An audit event still pending after this many seconds is closed by the reaper (settled, or
# failed with the reason): an event is pending only while the change to its one target is
# written (milliseconds to seconds), so half an hour is far past any live writer, and short
# enough that the Audit page does not show a dead process's change as in progress all day.
AUDIT_PENDING_TIMEOUT_S = 1800


def run_create(
    *, kind: str, actor: Actor, params: dict[str, Any] | None = None, dry_run: bool = False
) -> Run:
    return Run.objects.create(
        kind=kind, started_by=actor.label, params=params or {}, dry_run=dry_run
    )


def run_get(*, run_id: int, plan: bool = False) -> Run:
    """Run ``run_id`` (RunNotFound when there is none), its plan left in the database
    unless ``plan``: a dry run's plan holds an item per note it would change, and what
    polls a run (its status, progress and stats) does not show it."""
    runs = Run.objects.all() if plan else Run.objects.defer("plan")
    run = runs.filter(pk=run_id).first()
    if run is None:
        raise RunNotFound(run_id)
    return run


def runs_recent(*, kinds: Collection[str] = (), limit: int = 50) -> list[Run]:
    """The latest runs, newest first (of ``kinds`` when given), without their plans."""
    runs = Run.objects.defer("plan")
    if kinds:
        runs = runs.filter(kind__in=list(kinds))
    return list(runs[:limit])


def run_started(run: Run) -> bool:
    """Mark the run running (a redelivered run resumes). False when it was closed in the
    meantime (cancelled while queued, or closed by the reaper): then nothing runs."""
    now = timezone.now()
    started = Run.objects.filter(pk=run.pk, status__in=Run.OPEN).update(
        status=Run.RUNNING, started_at=now, heartbeat_at=now
    )
    run.refresh_from_db()
    return bool(started)


def run_progress(run: Run, processed: int, total: int | None) -> None:
    run.processed, run.total, run.heartbeat_at = processed, total, timezone.now()
    run.save(update_fields=["processed", "total", "heartbeat_at"])


def run_cancel_requested(run: Run) -> bool:
    return Run.objects.filter(pk=run.pk, cancel_requested_at__isnull=False).exists()


def run_finished(run: Run, stats: dict[str, Any]) -> None:
    run.status, run.stats, run.finished_at = Run.DONE, stats, timezone.now()
    if run.total is None:
        run.total = run.processed
    fields = ["status", "stats", "finished_at", "total"]
    if run.plan is not None:  # a dry run's plan, for an admin to apply
        run.plan_size = len(run.plan)
        fields += ["plan", "plan_size"]
    run.save(update_fields=fields)


def run_failed(run: Run, error: str) -> None:
    run.status, run.error, run.finished_at = Run.FAILED, error[:5000], timezone.now()
    run.save(update_fields=["status", "error", "finished_at"])


def run_stopped(run: Run, stats: dict[str, Any]) -> None:
    """A running run that stopped at a batch boundary because it was cancelled; its error
    says whether what it did can be undone (``stats["changes_before_cancel"]``: the audited
    changes of its batch)."""
    run.refresh_from_db(fields=["cancelled_by", "cancel_requested_at"])
    run.status, run.stats, run.finished_at = Run.CANCELLED, stats, timezone.now()
    changes = int(stats.get("changes_before_cancel") or 0)
    undo = (  # only audited changes can be undone: an import's records, a scan's rows are not
        f"the {changes} change{'s' if changes != 1 else ''} it made before stopping can be undone"
        if changes
        else "it recorded no change that can be undone"
    )
    run.error = (
        f"cancelled by {run.cancelled_by or 'someone'}: stopped after {run.processed}"
        f"{f' of {run.total}' if run.total is not None else ''}; {undo}"
    )
    run.save(update_fields=["status", "stats", "finished_at", "error"])


def run_cancel(*, actor: Actor, run_id: int) -> Run:
    """Cancel a run: a queued one is closed at once (its task, when it reaches a worker,
    does nothing); a running one is asked to stop and does so at its next batch boundary.
    Refused (RunRefused) for a run that is closed already, RunNotFound for no run."""
    run = Run.objects.filter(pk=run_id).first()
    if run is None:
        raise RunNotFound(run_id)
    now = timezone.now()
    closed = Run.objects.filter(pk=run.pk, status=Run.QUEUED).update(
        status=Run.CANCELLED,
        cancel_requested_at=now,
        cancelled_by=actor.label,
        finished_at=now,
        error=f"cancelled by {actor.label} before it started",
    )
    if not closed:
        asked = Run.objects.filter(pk=run.pk, status=Run.RUNNING).update(
            cancel_requested_at=now, cancelled_by=actor.label
        )
        if not asked:
            run.refresh_from_db()
            raise RunRefused(f"run {run.pk} is {run.status} already: nothing to cancel")
    run.refresh_from_db()
    return run


def runs_reap(*, now: Any = None) -> dict[str, int]:
    """Close what no worker will ever finish, each as failed with the reason:

    - runs still queued after ``QQ_RUN_QUEUED_TIMEOUT_S``: their task never reached a
      worker (no worker running, a broker that lost it, a worker that died at start);
      should the task arrive later, it finds the run closed and does nothing;
    - running runs with no sign of life for ``QQ_RUN_SILENT_TIMEOUT_S`` (longer than the
      broker's visibility timeout, after which a live broker hands the task out again);
    - audit events left pending for ``AUDIT_PENDING_TIMEOUT_S`` (the process making
      the change stopped before it said how it went)."""
    now = now or timezone.now()
    queued_bound = now - timedelta(seconds=settings.QQ_RUN_QUEUED_TIMEOUT_S)
    silent_bound = now - timedelta(seconds=settings.QQ_RUN_SILENT_TIMEOUT_S)
    queued = Run.objects.filter(status=Run.QUEUED, created_at__lt=queued_bound).update(
        status=Run.FAILED,
        finished_at=now,
        error=f"never started: its task did not reach a worker within "
        f"{_duration(settings.QQ_RUN_QUEUED_TIMEOUT_S)} (is a Celery worker running on this "
        "broker?); closed by the reaper, start it again",
    )
    silent = Run.objects.filter(status=Run.RUNNING, heartbeat_at__lt=silent_bound).update(
        status=Run.FAILED,
        finished_at=now,
        error=f"its worker stopped: no progress for "
        f"{_duration(settings.QQ_RUN_SILENT_TIMEOUT_S)}; closed by the reaper (what it "
        "changed before can be undone)",
    )
    pending = audit_close_pending(
        older_than=now - timedelta(seconds=AUDIT_PENDING_TIMEOUT_S),
        reason="left pending: the process making this change stopped before it finished; "
        "closed by the reaper. The store may or may not hold the change: check the target.",
    )
    return {"queued_runs": queued, "silent_runs": silent, "pending_events": pending}


def _duration(seconds: int) -> str:
    if seconds % 3600 == 0:
        return f"{seconds // 3600} h"
    if seconds % 60 == 0:
        return f"{seconds // 60} min"
    return f"{seconds} s"
