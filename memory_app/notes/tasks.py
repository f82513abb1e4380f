"""Celery tasks of the notes memory: thin wrappers that load a run and call one service."""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from celery.signals import worker_process_init, worker_ready

from memory_app.notes.models import MaintenanceRun
from memory_app.notes.services.dedup_scan import dedup_blocks_work
from memory_app.notes.services.maintenance import (
    job_run,
    scheduled_plan_settle,
    scheduled_run_create,
)
from memory_app.notes.services.runs import run_failed, runs_reap
from memory_app.notes.stores import vector_index_warm_up
from qqweb.lib.clients import embedder_warm_up
from qqweb.lib.errors import StoreUnavailable

logger = logging.getLogger(__name__)
# A job whose store is down is tried again after this many seconds, then twice as long each
# time (10, 20, 40 s: ``max_retries=3``): a store restarting or a brief network cut is
# back within the first minute, and a longer outage fails the run with the reason after
# about 70 s rather than leaving the curator waiting on a run that cannot progress.
RETRY_BASE_S = 10.0


@shared_task(bind=True, name="memory_app.run_job", acks_late=True, max_retries=3)
def run_job_task(self: Any, run_id: int) -> dict[str, Any]:
    """Run one maintenance job. A store that is down is retried with backoff; after the
    last try the run fails with the reason. A redelivered finished run does nothing."""
    run = MaintenanceRun.objects.get(pk=run_id)
    if run.status in MaintenanceRun.CLOSED:  # redelivered, cancelled or reaped: nothing to do
        return dict(run.stats)
    try:
        return job_run(run=run)
    except StoreUnavailable as e:
        if self.request.retries >= self.max_retries:
            run_failed(run, f"gave up after {self.request.retries + 1} tries: {e}")
            raise
        run.error = f"try {self.request.retries + 1} failed, retrying: {e}"
        run.save(update_fields=["error"])
        countdown = RETRY_BASE_S * 2**self.request.retries
        raise self.retry(exc=e, countdown=countdown) from e


@shared_task(name="memory_app.dedup_block", acks_late=True)
def dedup_block_task(run_id: int) -> int:
    """Compute blocks of run ``run_id``'s dedup scan (services.dedup_scan); redelivered
    after a crash, it computes a block again and writes the same pairs."""
    return dedup_blocks_work(run_id=run_id)


@shared_task(name="memory_app.scheduled_job")
def scheduled_job_task(kind: str, apply: bool = False) -> int:
    """What beat starts: a run of ``kind`` by the scheduler, handed to ``run_job``; a
    destructive job's is a dry run whose plan waits for review, then
    ``scheduled_plan`` applies it when the schedule is opted in (``apply``) and the plan
    is within QQ_SCHEDULE_MAX_SHARE."""
    run = scheduled_run_create(kind=kind)
    follow_up = scheduled_plan_task.si(run.pk, apply) if run.dry_run and apply else None
    run_job_task.apply_async((run.pk,), link=follow_up)
    return run.pk


@shared_task(name="memory_app.scheduled_plan")
def scheduled_plan_task(run_id: int, apply: bool) -> int | None:
    """After a scheduled dry run: apply its plan if the schedule may, else leave it waiting."""
    applying = scheduled_plan_settle(run_id=run_id, apply=apply)
    if applying is None:
        return None
    run_job_task.delay(applying.pk)
    return applying.pk


@shared_task(name="memory_app.reap_runs")
def reap_runs_task() -> dict[str, int]:
    """What beat runs every QQ_REAPER_INTERVAL_S (and a worker once at start): close the
    runs no worker will finish and the audit events a crash left pending."""
    return runs_reap()


@worker_process_init.connect
def _warm_up_in_a_pool_process(**_: Any) -> None:
    """A prefork pool's child (after the fork: never load the model before it)."""
    embedder_warm_up(wait_while_loading=True)
    vector_index_warm_up()


@worker_ready.connect
def _at_worker_start(sender: Any = None, **_: Any) -> None:
    """The model and the vector index load in the background (solo and thread pools run
    tasks in this process; a prefork pool's children load their own), and the reaper runs
    once."""
    pool = getattr(getattr(sender, "controller", None), "pool_cls", None)
    if "prefork" not in getattr(pool, "__module__", ""):
        embedder_warm_up(wait_while_loading=True)
        vector_index_warm_up()
    _reap_at_worker_start()


def _reap_at_worker_start() -> None:
    try:
        closed = runs_reap()
    except Exception:  # a worker must start even when Django's database is not there yet
        logger.exception("the reaper failed at worker start")
        return
    logger.info("reaper at worker start: %s", closed)
