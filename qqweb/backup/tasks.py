"""The worker's side of export and import: load the run, call the one service."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from memory_app.notes.models import MaintenanceRun
from qqweb.backup.importing import ImportConflicts
from qqweb.backup.ndjson import ExportFormatError
from qqweb.backup.services import backup_run
from qqweb.lib.errors import InvalidInput


@shared_task(name="qqweb.backup.run_backup")
def run_backup_task(run_id: int) -> dict[str, Any]:
    """Run an export or import. Not acknowledged late: an import run again after a worker
    died is idempotent, but it should be started again on purpose, from the page."""
    run = MaintenanceRun.objects.get(pk=run_id)
    if run.status != MaintenanceRun.QUEUED:
        return dict(run.stats)
    try:
        return backup_run(run=run)
    except (ImportConflicts, ExportFormatError, InvalidInput) as e:
        return {"error": str(e)}


def backup_start(run: MaintenanceRun) -> MaintenanceRun:
    run.task_id = run_backup_task.delay(run.pk).id
    run.save(update_fields=["task_id"])
    return run
