"""Starting a maintenance job from a front door: create its run, hand it to the worker."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memory_app.job_params import JobParams
from memory_app.models import MaintenanceRun
from memory_app.services.maintenance import job_apply_plan, job_create, job_undo_create
from memory_app.tasks import run_job_task
from qqweb.actors import Actor


def _enqueue(run: MaintenanceRun) -> MaintenanceRun:
    run.task_id = run_job_task.delay(run.pk).id
    run.save(update_fields=["task_id"])
    return run


def job_start(
    *,
    kind: str,
    actor: Actor,
    dry_run: bool = False,
    params: Mapping[str, Any] | JobParams | None = None,
) -> MaintenanceRun:
    return _enqueue(job_create(kind=kind, actor=actor, dry_run=dry_run, params=params))


def plan_apply_start(*, actor: Actor, run_id: int) -> MaintenanceRun:
    """Apply the plan of dry run ``run_id``, in the worker."""
    return _enqueue(job_apply_plan(actor=actor, run_id=run_id))


def run_undo_start(*, actor: Actor, run_id: int) -> MaintenanceRun:
    """Undo run ``run_id``, in the worker, as a run of its own (with progress)."""
    return _enqueue(job_undo_create(actor=actor, run_id=run_id))
