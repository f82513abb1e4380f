"""What every job shares: the Job record, progress, the actor and batch of a run."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from memory_app.notes.job_params import JobParams, NoParams
from memory_app.notes.models import MaintenanceRun
from qqweb.lib.actors import Actor
from qqweb.lib.errors import Busy, Conflict

Progress = Callable[[int, int | None], None]
BATCH = 500
LOCK_TTL = timedelta(minutes=10)


class JobBusy(Busy):
    """A run of the same kind holds the job's lock (409): wait for it."""

    def __init__(self, kind: str, run_id: int) -> None:
        super().__init__(f"job: {kind} is running already (run {run_id}); wait for it")
        self.kind = kind
        self.run_id = run_id

    def details(self) -> dict[str, object]:
        return {"field": "job", "run": self.run_id}


class NoPlanToApply(Conflict):
    """Asked to apply the plan of a run whose kind keeps none (409): only the dry run of a
    destructive job has a plan."""

    code = "no_plan"

    def __init__(self, run_id: int, what: str, planners: list[str]) -> None:
        self.message = (
            f"run {run_id} ({what}) has no plan to apply: only the dry run of a "
            f"destructive job has one ({', '.join(planners)})"
        )
        super().__init__(f"run: {self.message}")
        self.field = "run"

    def client_message(self) -> str:
        return self.message

    def details(self) -> dict[str, object]:
        return {"field": self.field}


class RunCancelled(Exception):
    """Raised by a run's progress callback at a batch boundary once the run was asked to
    stop (:func:`memory_app.notes.services.runs.run_cancel`)."""


@dataclass(frozen=True)
class Job:
    kind: str
    title: str
    description: str
    work: Callable[[MaintenanceRun, Progress], dict[str, Any]]
    params: type[JobParams] = NoParams  # its parameters, declared once (job_params.py)
    # a destructive job: its dry run stores the plan (``plan`` on the run) and the page
    # applies exactly that plan with ``apply(run, plan, progress)``
    apply: Callable[[MaintenanceRun, list[dict[str, Any]], Progress], dict[str, Any]] | None = None


def _actor(run: MaintenanceRun) -> Actor:
    return Actor.job(run.kind)


def _batch(run: MaintenanceRun) -> uuid.UUID:
    return run.batch_id if isinstance(run.batch_id, uuid.UUID) else uuid.UUID(str(run.batch_id))
