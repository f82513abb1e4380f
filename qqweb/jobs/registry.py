"""The job registry: which jobs there are, and what runs a run of each kind.

The apps register their jobs in their ``AppConfig.ready()`` (the notes jobs from
memory_app.notes, the graph jobs from graph_app, export and import from qqweb.backup), as
they register undo handlers with :mod:`qqweb.audit.registry`; this module imports no app.

A *job* is a kind of work (archival); a *run* is one execution of it
(:class:`qqweb.jobs.models.Run`). ``listed`` jobs are the jobs page's catalogue (a form,
an API route, a command each); the others (undo, export, import) are started by their own
front doors but are runs like the rest: the same lock, retry, cancel and run page.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from qqweb.jobs.errors import RunRefused
from qqweb.jobs.models import Run
from qqweb.jobs.params import JobParams, NoParams
from qqweb.lib.actors import Actor

Progress = Callable[[int, int | None], None]


class DataclassResult(Protocol):
    """Any dataclass instance (what typeshed calls ``DataclassInstance``)."""

    __dataclass_fields__: ClassVar[dict[str, Any]]


# What a job returns: its result, a dataclass (or, for the jobs not converted yet, a dict);
# the run keeps it as its ``stats`` (JSON).
Result = DataclassResult | dict[str, Any]
Work = Callable[[Run, Progress], Result]
# A plan as the run keeps it (``Run.plan``): JSON, one object per planned change.
StoredPlan = list[dict[str, Any]]
# What the runner calls to apply a dry run's plan: with the plan as it was stored.
Apply = Callable[[Run, StoredPlan, Progress], Result]

ItemT = TypeVar("ItemT")


@dataclass(frozen=True)
class PlanApply(Generic[ItemT]):
    """A destructive job's apply typed against its plan items (``apply(run, items,
    progress)``), with the one function that reads an item from the run's JSON
    (``load``); called as the runner calls an :data:`Apply`, with the stored plan."""

    load: Callable[[Mapping[str, Any]], ItemT]
    apply: Callable[[Run, list[ItemT], Progress], Result]

    def __call__(self, run: Run, stored: StoredPlan, progress: Progress) -> Result:
        return self.apply(run, [self.load(item) for item in stored], progress)


UNDO_KIND = "undo"


@dataclass(frozen=True)
class Job:
    kind: str
    title: str
    description: str
    work: Work
    params: type[JobParams] = NoParams  # its parameters, declared once
    # a destructive job: its dry run stores the plan (``plan`` on the run) and the page
    # applies exactly that plan with ``apply(run, plan, progress)`` (a PlanApply: the
    # job's apply typed against its plan items, each read from the stored JSON)
    apply: Apply | None = None
    # how many items of a dry run's plan changed since it was planned: a scheduled plan
    # with changed items has expired and is not applied (a destructive job's)
    plan_changed: Callable[[Run], int] | None = None
    listed: bool = True  # in the jobs page's catalogue (its form, API route and command)


# Insertion order is the page's order: the apps register in INSTALLED_APPS order.
JOBS: dict[str, Job] = {}  # the listed jobs
HIDDEN_JOBS: dict[str, Job] = {}  # runs with front doors of their own (undo, export, import)


def register_job(job: Job) -> None:
    """Register ``job``. Registering the same job again does nothing; another job of a
    kind that has one is a programming error."""
    existing = JOBS.get(job.kind) or HIDDEN_JOBS.get(job.kind)
    if existing is not None and existing != job:
        raise ValueError(f"there is a job of kind {job.kind!r} already: {existing.title}")
    (JOBS if job.listed else HIDDEN_JOBS)[job.kind] = job


def run_kinds() -> tuple[str, ...]:
    """Every kind a run may have."""
    return (*JOBS, *HIDDEN_JOBS)


def job_of(kind: str) -> Job:
    """The job that runs runs of ``kind``; refused (RunRefused) for an unknown kind."""
    job = JOBS.get(kind) or HIDDEN_JOBS.get(kind)
    if job is None:
        raise RunRefused(f"{kind!r} is not a registered job")
    return job


def kind_title(kind: str) -> str:
    job = JOBS.get(kind) or HIDDEN_JOBS.get(kind)
    return job.title if job is not None else kind


def plan_job(kind: str) -> Job | None:
    """The destructive job whose dry runs of ``kind`` keep a plan to apply, or None."""
    job = JOBS.get(kind)
    return job if job is not None and job.apply is not None else None


def planning_kinds() -> list[str]:
    return [kind for kind in JOBS if plan_job(kind) is not None]


def run_actor(run: Run) -> Actor:
    """Who a run's changes are audited as: the job."""
    return Actor.job(run.kind)


def run_batch(run: Run) -> uuid.UUID:
    """The audit batch of a run's changes (undone together)."""
    return run.batch_id if isinstance(run.batch_id, uuid.UUID) else uuid.UUID(str(run.batch_id))
