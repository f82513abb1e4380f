"""The worker's side of export and import: load the run, call the one service."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from backup_app.importing import ImportConflicts
from backup_app.ndjson import ExportFormatError
from backup_app.services import backup_run
from memory_app.memory import InvalidNote
from memory_app.models import MaintenanceRun


@shared_task(name="backup_app.run_backup")
def run_backup_task(run_id: int) -> dict[str, Any]:
    """Run an export or import. Not acknowledged late: an import run again after a worker
    died is idempotent, but it should be started again on purpose, from the page."""
    run = MaintenanceRun.objects.get(pk=run_id)
    if run.status != MaintenanceRun.QUEUED:
        return dict(run.stats)
    try:
        return backup_run(run=run)
    except (ImportConflicts, ExportFormatError, InvalidNote) as e:
        return {"error": str(e)}


def backup_start(run: MaintenanceRun) -> MaintenanceRun:
    run.task_id = run_backup_task.delay(run.pk).id
    run.save(update_fields=["task_id"])
    return run
