"""Celery tasks of the notes memory: thin wrappers that load a run and call one service."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from memory_app.memory import MemoryLibraryError
from memory_app.models import MaintenanceRun
from memory_app.services.review import duplicates_scan
from memory_app.services.runs import run_failed, run_finished, run_progress, run_started


@shared_task(name="memory_app.duplicates_scan", acks_late=True)
def duplicates_scan_task(run_id: int) -> dict[str, Any]:
    """Fill the review queue; progress and result go to the MaintenanceRun row."""
    run = MaintenanceRun.objects.get(pk=run_id)
    run_started(run)
    try:
        stats = duplicates_scan(
            run=run,
            threshold=float(run.params["threshold"]),
            progress=lambda done, total: run_progress(run, done, total),
        )
    except (MemoryLibraryError, KeyError, ValueError) as e:
        run_failed(run, str(e))
        raise
    run_finished(run, stats)
    return stats
