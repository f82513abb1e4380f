"""Creating a run (its parameters checked) and running it under the job's lock."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from datetime import timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from qqweb.audit.models import AuditEvent
from qqweb.jobs.errors import (
    JobBusy,
    NoPlanToApply,
    RunCancelled,
    RunNotFound,
    RunRefused,
    UnknownJob,
)
from qqweb.jobs.models import JobLock, Run
from qqweb.jobs.params import JobParams, params_validate
from qqweb.jobs.registry import (
    JOBS,
    UNDO_KIND,
    job_of,
    kind_title,
    plan_job,
    planning_kinds,
)
from qqweb.jobs.runs import (
    run_cancel_requested,
    run_failed,
    run_finished,
    run_progress,
    run_started,
    run_stopped,
)
from qqweb.lib.actors import Actor
from qqweb.lib.errors import Unavailable

# A run renews its lock at each progress report; a lock not renewed for this long is
# taken as abandoned (its worker died) and another run of the kind may take it.
LOCK_TTL = timedelta(minutes=10)
# The label of the actor that starts scheduled runs (``Actor.job("schedule")``).
SCHEDULER_LABEL = "job:schedule"

# --- running a job ---------------------------------------------------------------------------


def job_create(
    *,
    kind: str,
    actor: Actor,
    dry_run: bool = False,
    params: Mapping[str, Any] | JobParams | None = None,
    confirm_lost_pins: bool = False,
) -> Run:
    """A queued run of ``kind``. ``params`` is validated with the job's schema (raising
    InvalidJobParams naming each bad one) and stored whole, the settings' values filled in
    for what was left out, so the run records what it will use. ``confirm_lost_pins``: a
    destructive job's run applies its plan even though it loses pinned recalls (else its
    plan waits for review; the job reads it, ``Run.confirm_lost_pins``)."""
    if kind not in JOBS:
        raise UnknownJob(list(JOBS))
    valid = params_validate(JOBS[kind].params, params)
    return Run.objects.create(
        kind=kind,
        started_by=actor.label,
        params=valid.model_dump(mode="json"),
        dry_run=dry_run,
        confirm_lost_pins=confirm_lost_pins,
    )


def job_apply_plan(*, actor: Actor, run_id: int) -> Run:
    """A queued run that applies exactly the plan of dry run ``run_id`` (a destructive
    job's): the same parameters, the planned notes only, each only if it is still as it
    was planned. Refused (RunRefused) when the run has no plan or it was applied already;
    RunNotFound when there is no such run."""
    plan_run = Run.objects.filter(pk=run_id).first()
    if plan_run is None:
        raise RunNotFound(run_id)
    job = plan_job(plan_run.kind)
    if job is None:
        raise NoPlanToApply(plan_run.pk, kind_title(plan_run.kind), planning_kinds())
    if not plan_run.dry_run or plan_run.status != Run.DONE or plan_run.plan is None:
        raise RunRefused(f"run {plan_run.pk} is not a finished dry run with a plan")
    applied = plan_run.applications.exclude(status__in=(Run.FAILED, Run.CANCELLED)).first()
    if applied is not None:
        raise RunRefused(f"this plan is applied by run {applied.pk} already")
    if plan_run.started_by == SCHEDULER_LABEL and job.plan_changed is not None:
        changed = job.plan_changed(plan_run)
        if changed:
            raise RunRefused(
                f"this scheduled plan expired: {changed} of its notes changed since it was "
                "made; preview the job again"
            )
    return Run.objects.create(
        kind=plan_run.kind,
        started_by=actor.label,
        params=plan_run.params,
        dry_run=False,
        plan_of=plan_run,
    )


def job_undo_create(*, actor: Actor, run_id: int) -> Run:
    """A queued run (kind ``undo``) that undoes every change run ``run_id`` made."""
    target = Run.objects.filter(pk=run_id).first()
    if target is None:
        raise RunNotFound(run_id)
    if target.dry_run or target.kind == UNDO_KIND:
        raise RunRefused(f"run {target.pk} changed nothing: there is nothing to undo")
    if target.is_open:
        raise RunRefused(f"run {target.pk} is {target.status}: cancel it or wait")
    busy = target.undo_runs.filter(status__in=Run.OPEN).first()
    if busy is not None:
        raise RunRefused(f"run {target.pk} is being undone by run {busy.pk}")
    return Run.objects.create(
        kind=UNDO_KIND,
        started_by=actor.label,
        params={"run": target.pk, "user_id": actor.user_id},
        undo_of=target,
    )


def _lock(run: Run) -> None:
    now = timezone.now()
    with transaction.atomic():
        # a lock expires, and a run that is closed (failed, reaped, cancelled) holds none
        JobLock.objects.filter(kind=run.kind, expires_at__lt=now).delete()
        JobLock.objects.filter(kind=run.kind, run__status__in=Run.CLOSED).delete()
        lock = JobLock.objects.filter(kind=run.kind).first()
        if lock is not None and lock.run_id != run.pk:
            raise JobBusy(run.kind, lock.run_id)
        try:
            JobLock.objects.update_or_create(
                kind=run.kind, defaults={"run": run, "expires_at": now + LOCK_TTL}
            )
        except IntegrityError as e:
            raise JobBusy(run.kind, 0) from e


def _unlock(run: Run) -> None:
    JobLock.objects.filter(kind=run.kind, run=run).delete()


def job_run(
    *, run: Run, on_progress: Callable[[int, int | None], None] | None = None
) -> dict[str, Any]:
    """Run (or resume) a job under its lock. A store that is down (an
    :class:`~qqweb.lib.errors.Unavailable`: MongoDB, Neo4j, the memory directory, the
    embedder) raises for the caller to retry, the run left open (a caller that does not retry calls
    :func:`job_run_in_process`); anything else (a StoreError included: a bug) fails the run
    with the reason and is not retried. A run closed before it started (cancelled while
    queued, closed by the reaper) does nothing; a run asked to stop stops at its next
    progress report (a batch boundary) and is closed as cancelled."""
    try:
        job = job_of(run.kind)  # its app may have been uninstalled since it was queued
    except RunRefused as e:
        run_failed(run, str(e))
        raise
    try:
        _lock(run)
    except JobBusy as e:
        run_failed(run, str(e))
        raise
    if not run_started(run):
        _unlock(run)
        return dict(run.stats)

    def progress(done: int, total: int | None) -> None:
        run_progress(run, done, total)
        if on_progress is not None:
            on_progress(done, total)
        JobLock.objects.filter(kind=run.kind, run=run).update(expires_at=timezone.now() + LOCK_TTL)
        if run_cancel_requested(run):
            raise RunCancelled

    try:
        if run.plan_of_id is not None:
            plan_run = Run.objects.get(pk=run.plan_of_id)
            if job.apply is None or plan_run.plan is None:
                raise RunRefused(f"run {plan_run.pk} has no plan to apply")
            stats = _stats(job.apply(run, list(plan_run.plan), progress))
        else:
            stats = _stats(job.work(run, progress))
    except RunCancelled:
        _unlock(run)
        stats = {"changes_before_cancel": _changes_in_batch(run)}
        run_stopped(run, stats)
        return stats
    except Unavailable:  # an outage: the caller retries (the run stays open)
        _unlock(run)
        raise
    except Exception as e:
        _unlock(run)
        run_failed(run, str(e))
        raise
    run_finished(run, stats)
    _unlock(run)
    return stats


def job_run_in_process(
    *, run: Run, on_progress: Callable[[int, int | None], None] | None = None
) -> dict[str, Any]:
    """:func:`job_run` where nothing retries the run (a command, the facts scan's button,
    its beat task): a store that is down fails the run with the reason, as any other
    error does, and raises; the run is not left running for the reaper to close."""
    try:
        return job_run(run=run, on_progress=on_progress)
    except Unavailable as e:
        run_failed(run, str(e))
        raise


def _changes_in_batch(run: Run) -> int:
    return AuditEvent.objects.filter(batch_id=run.batch_id, status=AuditEvent.DONE).count()


def _stats(result: Any) -> dict[str, Any]:
    """A job's result as the run's stats: a dataclass as its fields, a dict as it is."""
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        return dataclasses.asdict(result)
    return dict(result)
