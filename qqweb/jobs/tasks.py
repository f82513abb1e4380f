"""The Celery tasks of the jobs app: the one task that runs a run, and the reaper.

A run whose store is down (an ``Unavailable``: MongoDB's, Neo4j's, the memory
directory's or the embedder's outage, the same request may well succeed later) is retried by
Celery itself (``autoretry_for``), after ``RETRY_BACKOFF_S`` then twice as long each time
(10, 20, 40 s, each drawn at random below that bound: ``retry_jitter``, so runs stopped by
the same outage do not all come back at the same second), ``MAX_RETRIES`` times: a store
restarting or a brief network cut is back within the first minute, and a longer outage
fails the run with the reason after at most about 70 s rather than leaving the curator
waiting on a run that cannot progress. Anything else (a bug, a refused run) fails the run
at once and is not retried.

The task names are the ones beat entries and queued messages already hold
(``memory_app.run_job``, ``memory_app.reap_runs``, ``qqweb.backup.run_backup``): they
are kept as they were when the tasks lived in memory_app and qqweb.backup.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from celery.signals import worker_ready

from qqweb.jobs.models import Run
from qqweb.jobs.runner import job_run
from qqweb.jobs.runs import run_failed, runs_reap
from qqweb.lib.errors import Unavailable

logger = logging.getLogger(__name__)
RETRY_BACKOFF_S = 10
MAX_RETRIES = 3
# A run's task: acknowledged once done (a worker that dies hands it back), retried by
# Celery while its store is down, as the module docstring says.
RUN_TASK_OPTIONS: dict[str, Any] = {
    "bind": True,
    "acks_late": True,
    "autoretry_for": (Unavailable,),
    "retry_backoff": RETRY_BACKOFF_S,
    "retry_jitter": True,
    "max_retries": MAX_RETRIES,
}


def _run(task: Any, run_id: int) -> dict[str, Any]:
    run = Run.objects.get(pk=run_id)
    if run.status in Run.CLOSED:  # redelivered, cancelled or reaped: nothing to do
        return dict(run.stats)
    try:
        return job_run(run=run)
    except Unavailable as e:  # Celery retries it (autoretry_for); say so on the run
        tries = task.request.retries + 1
        if task.request.retries >= task.max_retries:
            run_failed(run, f"gave up after {tries} tries: {e}")
        else:
            run.error = f"try {tries} failed, retrying: {e}"
            run.save(update_fields=["error"])
        raise


@shared_task(name="memory_app.run_job", **RUN_TASK_OPTIONS)
def run_job_task(self: Any, run_id: int) -> dict[str, Any]:
    """Run one run of any registered job (see the module docstring for the retries). A
    redelivered finished run does nothing."""
    return _run(self, run_id)


@shared_task(name="qqweb.backup.run_backup", **RUN_TASK_OPTIONS)
def run_backup_task(self: Any, run_id: int) -> dict[str, Any]:
    """The old name of :func:`run_job_task` for exports and imports, kept for the
    messages queued before backup runs became runs of registered jobs."""
    return _run(self, run_id)


@shared_task(name="memory_app.reap_runs")
def reap_runs_task() -> dict[str, int]:
    """What beat runs every QQ_REAPER_INTERVAL_S (and a worker once at start): close the
    runs no worker will finish and the audit events a crash left pending."""
    return runs_reap()


@worker_ready.connect
def _reap_at_worker_start(**_: Any) -> None:
    try:
        closed = runs_reap()
    except Exception:  # a worker must start even when Django's database is not there yet
        logger.exception("the reaper failed at worker start")
        return
    logger.info("reaper at worker start: %s", closed)
