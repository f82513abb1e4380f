"""Starting a maintenance job from a front door: create its run, hand it to the worker."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memory_app.job_params import JobParams
from memory_app.models import MaintenanceRun
from memory_app.services.maintenance import job_create
from memory_app.tasks import run_job_task
from qqweb.actors import Actor


def job_start(
    *,
    kind: str,
    actor: Actor,
    dry_run: bool = False,
    params: Mapping[str, Any] | JobParams | None = None,
) -> MaintenanceRun:
    run = job_create(kind=kind, actor=actor, dry_run=dry_run, params=params)
    run.task_id = run_job_task.delay(run.pk).id
    run.save(update_fields=["task_id"])
    return run
