"""Reads for the Maintenance page: each job with its last run, run history, schedules.

The catalogue of jobs is the maintenance service's (``services.maintenance.JOBS``); the
caller passes it in, so reads do not depend on writes."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from django_celery_beat.models import PeriodicTask

from memory_app.models import MaintenanceRun


class JobInfo(Protocol):
    @property
    def kind(self) -> str: ...

    @property
    def title(self) -> str: ...

    @property
    def description(self) -> str: ...


@dataclass
class JobRow:
    job: JobInfo
    last: MaintenanceRun | None


def maintenance_overview(*, jobs: Iterable[JobInfo], history: int = 30) -> dict[str, Any]:
    runs = list(MaintenanceRun.objects.all()[:history])
    rows = [JobRow(job, MaintenanceRun.objects.filter(kind=job.kind).first()) for job in jobs]
    schedules = list(
        PeriodicTask.objects.filter(task="memory_app.scheduled_job")
        .select_related("crontab")
        .order_by("name")
    )
    return {
        "jobs": rows,
        "runs": runs,
        "schedules": schedules,
        "active": [r for r in runs if r.status in (MaintenanceRun.QUEUED, MaintenanceRun.RUNNING)],
    }
