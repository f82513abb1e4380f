"""Starting a run from a front door: create it, hand it to the worker."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils import timezone
from kombu.exceptions import OperationalError

from qqweb.jobs.models import Run
from qqweb.jobs.params import JobParams
from qqweb.jobs.runner import job_apply_plan, job_create, job_undo_create
from qqweb.jobs.tasks import run_job_task
from qqweb.lib.actors import Actor
from qqweb.lib.errors import StoreUnavailable
from qqweb.liveness import jobs_wait_for_a_worker


def run_enqueue(run: Run) -> Run:
    """Queue the run. When the broker does not take it (down, unreachable), the run is
    marked failed with the reason, so it never waits in the list for a worker that will
    not come, and :class:`StoreUnavailable` (503) says so."""
    try:
        run.task_id = run_job_task.delay(run.pk).id
    except Exception as e:
        run.status = Run.FAILED
        run.error = f"the task broker did not take the job: {_cause(e)}"
        run.finished_at = timezone.now()
        run.save(update_fields=["status", "error", "finished_at"])
        if _is_outage(e):
            raise StoreUnavailable("broker", str(_cause(e))) from e
        raise
    run.save(update_fields=["task_id"])
    return run


def job_start(
    *,
    kind: str,
    actor: Actor,
    dry_run: bool = False,
    params: Mapping[str, Any] | JobParams | None = None,
    confirm_lost_pins: bool = False,
) -> Run:
    """Create the run and queue it (see :func:`run_enqueue`)."""
    return run_enqueue(
        job_create(
            kind=kind,
            actor=actor,
            dry_run=dry_run,
            params=params,
            confirm_lost_pins=confirm_lost_pins,
        )
    )


def plan_apply_start(*, actor: Actor, run_id: int) -> Run:
    """Apply the plan of dry run ``run_id``, in the worker."""
    return run_enqueue(job_apply_plan(actor=actor, run_id=run_id))


def run_undo_start(*, actor: Actor, run_id: int) -> Run:
    """Undo run ``run_id``, in the worker, as a run of its own (with progress)."""
    return run_enqueue(job_undo_create(actor=actor, run_id=run_id))


def waits_for_worker(run: Run | None) -> bool:
    """True when ``run`` is queued and no worker is alive to take it: the page says so
    (the job waits in the queue) instead of a progress bar that never moves."""
    return run is not None and run.status == Run.QUEUED and jobs_wait_for_a_worker()


def _chain(error: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in seen and len(seen) < 20:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def _is_outage(error: BaseException) -> bool:
    """A broker (or result backend) that cannot be reached: kombu's OperationalError, an
    OSError, or redis' ConnectionError / TimeoutError, anywhere in the chain (Celery wraps
    a result backend's in a RuntimeError). redis is imported here, when a job could not be
    started, not when a web process starts (its package takes 0.35 s to import)."""
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError

    return any(
        isinstance(e, OperationalError | OSError | RedisConnectionError | RedisTimeoutError)
        for e in _chain(error)
    )


def _cause(error: BaseException) -> BaseException:
    """The error that says what happened: the innermost one of the chain."""
    return _chain(error)[-1]
