"""Reads for the Maintenance page: each job with its last run, run history, schedules."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memory_app.models import MaintenanceRun
from memory_app.services.maintenance import JOBS, Job


@dataclass
class JobRow:
    job: Job
    last: MaintenanceRun | None


def maintenance_overview(*, history: int = 30) -> dict[str, Any]:
    from django_celery_beat.models import PeriodicTask

    runs = list(MaintenanceRun.objects.all()[:history])
    last: dict[str, MaintenanceRun] = {}
    for kind in JOBS:
        run = MaintenanceRun.objects.filter(kind=kind).first()
        if run is not None:
            last[kind] = run
    schedules = list(
        PeriodicTask.objects.filter(task="memory_app.scheduled_job")
        .select_related("crontab")
        .order_by("name")
    )
    return {
        "jobs": [JobRow(job, last.get(kind)) for kind, job in JOBS.items()],
        "runs": runs,
        "schedules": schedules,
        "active": [r for r in runs if r.status in (MaintenanceRun.QUEUED, MaintenanceRun.RUNNING)],
    }
