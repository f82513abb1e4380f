"""Creating a run (its parameters checked) and running it under the job's lock."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from memory_app.job_params import (
    JobParams,
    params_validate,
)
from memory_app.memory import InvalidNote, StoreUnavailable
from memory_app.models import JobLock, MaintenanceRun
from memory_app.services.runs import run_failed, run_finished, run_progress, run_started
from qqweb.actors import Actor

from .common import LOCK_TTL, JobBusy
from .registry import JOBS

# --- running a job ---------------------------------------------------------------------------


def job_create(
    *,
    kind: str,
    actor: Actor,
    dry_run: bool = False,
    params: Mapping[str, Any] | JobParams | None = None,
) -> MaintenanceRun:
    """A queued run of ``kind``. ``params`` is validated with the job's schema (raising
    InvalidJobParams naming each bad one) and stored whole, the settings' values filled in
    for what was left out, so the run records what it will use."""
    if kind not in JOBS:
        raise InvalidNote("job", f"must be one of {', '.join(JOBS)}")
    valid = params_validate(JOBS[kind].params, params)
    return MaintenanceRun.objects.create(
        kind=kind, started_by=actor.label, params=valid.model_dump(mode="json"), dry_run=dry_run
    )


def _lock(run: MaintenanceRun) -> None:
    now = timezone.now()
    with transaction.atomic():
        JobLock.objects.filter(kind=run.kind, expires_at__lt=now).delete()
        lock = JobLock.objects.filter(kind=run.kind).first()
        if lock is not None and lock.run_id != run.pk:
            raise JobBusy(run.kind, lock.run_id)
        try:
            JobLock.objects.update_or_create(
                kind=run.kind, defaults={"run": run, "expires_at": now + LOCK_TTL}
            )
        except IntegrityError as e:
            raise JobBusy(run.kind, 0) from e


def _unlock(run: MaintenanceRun) -> None:
    JobLock.objects.filter(kind=run.kind, run=run).delete()


def job_run(
    *, run: MaintenanceRun, on_progress: Callable[[int, int | None], None] | None = None
) -> dict[str, Any]:
    """Run (or resume) a job under its lock. A store that is down raises StoreUnavailable
    for the caller to retry; anything else (a StoreError included: a bug) fails the run
    with the reason and is not retried."""
    _lock(run)
    run_started(run)

    def progress(done: int, total: int | None) -> None:
        run_progress(run, done, total)
        if on_progress is not None:
            on_progress(done, total)
        JobLock.objects.filter(kind=run.kind, run=run).update(expires_at=timezone.now() + LOCK_TTL)

    try:
        stats = JOBS[run.kind].work(run, progress)
    except StoreUnavailable:  # an outage: the caller retries (the run stays open)
        _unlock(run)
        raise
    except Exception as e:
        _unlock(run)
        run_failed(run, str(e))
        raise
    run_finished(run, stats)
    _unlock(run)
    return stats
