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


DECAY_VS_AGENT = (
    "qqweb's decay pass honours each note's stored decay_rate (the agent's notes agent "
    "writes rates from 0.005 to 0.05 on purpose) and starts again from the undecayed "
    "importance, so running it twice changes nothing. The agent's own decay command uses "
    "0.01 for every note and decays the stored value again each time it runs (it "
    "compounds); its low-importance archival and its deduplication also use 0.01. For "
    "some notes the two give another importance."
)


@dataclass(frozen=True)
class DecayComparison:
    """How many notes qqweb's decay and the agent's own command treat differently, as
    counted by a decay run (``run``; None when no run counted them yet)."""

    explanation: str
    run: MaintenanceRun | None = None
    scanned: int = 0
    differs: int = 0
    by_rate: int = 0
    by_compounding: int = 0


def decay_agent_comparison(*, run: MaintenanceRun | None = None) -> DecayComparison:
    """The counts of ``run``, or of the latest finished decay run (dry or not)."""
    if run is None:
        run = (
            MaintenanceRun.objects.filter(
                kind="decay", status=MaintenanceRun.DONE, stats__has_key="agent_differs"
            )
            .order_by("-created_at", "-pk")
            .first()
        )
    stats = run.stats if run is not None and isinstance(run.stats, dict) else {}
    if "agent_differs" not in stats:
        return DecayComparison(DECAY_VS_AGENT)
    return DecayComparison(
        DECAY_VS_AGENT,
        run=run,
        scanned=int(stats.get("scanned") or 0),
        differs=int(stats["agent_differs"]),
        by_rate=int(stats.get("agent_differs_rate") or 0),
        by_compounding=int(stats.get("agent_differs_compounding") or 0),
    )


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
        "decay_comparison": decay_agent_comparison(),
    }
