"""Celery tasks of the notes memory: the dedup scan's blocks, what beat starts for a
scheduled job, the worker's warm-up. (The task that runs a run and the reaper are the jobs
app's: :mod:`qqweb.jobs.tasks`.)"""

from __future__ import annotations

from typing import Any

from celery import shared_task
from celery.signals import worker_process_init, worker_ready

from memory_app.notes.services.dedup_scan import dedup_blocks_work
from memory_app.notes.services.jobs import scheduled_plan_settle, scheduled_run_create
from memory_app.notes.stores import vector_index_warm_up
from qqweb.jobs.tasks import run_job_task
from qqweb.lib.clients import embedder_warm_up


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


@worker_process_init.connect
def _warm_up_in_a_pool_process(**_: Any) -> None:
    """A prefork pool's child (after the fork: never load the model before it)."""
    embedder_warm_up(wait_while_loading=True)
    vector_index_warm_up()


@worker_ready.connect
def _at_worker_start(sender: Any = None, **_: Any) -> None:
    """The model and the vector index load in the background (solo and thread pools run
    tasks in this process; a prefork pool's children load their own). (The reaper runs
    once too: :mod:`qqweb.jobs.tasks`.)"""
    pool = getattr(getattr(sender, "controller", None), "pool_cls", None)
    if "prefork" not in getattr(pool, "__module__", ""):
        embedder_warm_up(wait_while_loading=True)
        vector_index_warm_up()
