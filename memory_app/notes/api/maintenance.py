"""The jobs over the API (its paths stay under /api/maintenance): start a job (its parameters
checked by its schema), poll, cancel, apply and undo a run."""

from __future__ import annotations

from typing import Annotated, Any

from django.http import HttpRequest
from ninja import Status
from pydantic import Field

from memory_app.notes.api.common import router
from memory_app.notes.schemas import JobIn, PlanOut, RunOut, job_in
from memory_app.notes.selectors.jobs import plan_page, plan_summary
from memory_app.notes.selectors.plan_effects import run_plan_effect
from qqweb.audit.selectors import batch_undo_events
from qqweb.jobs.errors import RunRefused, UnknownJob
from qqweb.jobs.models import Run
from qqweb.jobs.registry import JOBS, Job
from qqweb.jobs.runs import run_cancel, run_get, runs_recent
from qqweb.jobs.starting import job_start, plan_apply_start, run_undo_start
from qqweb.lib.actors import Actor
from qqweb.lib.api_types import Limit1000, Offset, ShortText, errors
from qqweb.lib.auth import ADMIN, VIEWER, require_role
from qqweb.recall.effects import PlanEffect
from qqweb.recall.lost_pins import ConfirmLostPins, pins_guarded
from qqweb.recall.undo_effects import undo_effects


@router.get(
    "/maintenance/runs/{run_id}", response={200: RunOut, **errors(404)}, tags=["maintenance"]
)
def maintenance_run(request: HttpRequest, run_id: int) -> Run:
    require_role(request, VIEWER)
    return run_get(run_id=run_id)


@router.get("/maintenance/runs", response={200: list[RunOut], **errors()}, tags=["maintenance"])
def maintenance_runs(
    request: HttpRequest, kind: ShortText = "", limit: Annotated[int, Field(ge=1, le=500)] = 50
) -> list[Any]:
    require_role(request, VIEWER)
    return runs_recent(kinds=[kind] if kind else [], limit=limit)


@router.get(
    "/maintenance/runs/{run_id}/plan", response={200: PlanOut, **errors(404)}, tags=["maintenance"]
)
def maintenance_run_plan(
    request: HttpRequest, run_id: int, offset: Offset = 0, limit: Limit1000 = 200
) -> dict[str, Any]:
    """The plan of a dry run of a destructive job (archival, purge, decay,
    auto-consolidation): each note it would change, before -> after, paged, and
    what it would do to the pinned recalls (``pins``)."""
    require_role(request, VIEWER)
    run = run_get(run_id=run_id, plan=True)
    if run.plan is None:
        raise RunRefused(f"run {run.pk} has no plan (only dry runs of destructive jobs)")
    total, items = plan_page(run=run, offset=offset, limit=limit)
    return {
        "run": run.pk,
        "summary": plan_summary(run),
        "total": total,
        "items": items,
        "pins": run_plan_effect(run),
    }


@router.post(
    "/maintenance/runs/{run_id}/apply",
    response={202: RunOut, **errors(404, 409, 503)},
    tags=["maintenance"],
)
def maintenance_run_apply(
    request: HttpRequest, run_id: int, confirm_lost_pins: ConfirmLostPins = False
) -> Status:
    """Apply exactly the plan of dry run ``run_id`` in the worker: the planned notes by id,
    each only if unchanged since the plan (the others are counted in
    ``stats.changed_since_plan``); 404 when there is no such run, 409 when its kind keeps
    no plan (an export, a scan), 400 when it is not a finished dry run or its plan was
    applied already. A plan that would lose a pinned recall (its ``pins`` at ``GET
    /plan``) answers 409 ``would_lose_pins`` and starts nothing, unless
    ``confirm_lost_pins=true``."""
    require_role(request, ADMIN)
    with pins_guarded(lambda: _plan_effects(run_id), confirmed=confirm_lost_pins):
        return Status(202, plan_apply_start(actor=Actor.from_request(request), run_id=run_id))


def _plan_effects(run_id: int) -> list[PlanEffect]:
    run = Run.objects.filter(pk=run_id, dry_run=True).first()
    effect = run_plan_effect(run) if run is not None else None
    return [effect] if effect is not None else []


@router.post(
    "/maintenance/runs/{run_id}/cancel",
    response={200: RunOut, **errors(404, 503)},
    tags=["maintenance"],
)
def maintenance_run_cancel(request: HttpRequest, run_id: int) -> Run:
    """Cancel a queued run (closed at once) or a running one (it stops at its next batch,
    then is ``cancelled``; what it changed before can be undone); 400 when it is closed."""
    require_role(request, ADMIN)
    return run_cancel(actor=Actor.from_request(request), run_id=run_id)


@router.post(
    "/maintenance/runs/{run_id}/undo",
    response={202: RunOut, **errors(404, 409, 503)},
    tags=["maintenance"],
)
def maintenance_run_undo(
    request: HttpRequest, run_id: int, confirm_lost_pins: ConfirmLostPins = False
) -> Status:
    """Undo every change of run ``run_id`` in the worker, as a run of kind ``undo`` (poll
    it); a change whose note moved on since is refused and listed in its stats. One that
    would take a pinned item out again answers 409 ``would_lose_pins`` and starts
    nothing, unless ``confirm_lost_pins=true``."""
    require_role(request, ADMIN)
    with pins_guarded(
        lambda: undo_effects(
            event
            for batch in Run.objects.filter(pk=run_id).values_list("batch_id", flat=True)
            for event in batch_undo_events(batch)
        ),
        confirmed=confirm_lost_pins,
    ):
        return Status(202, run_undo_start(actor=Actor.from_request(request), run_id=run_id))


# a destructive job's start (docs/jobs.md, memory_app/notes/services/jobs/pins_first.py)
GUARDED_START = (
    " Started with ``dry_run`` false, it plans first: a plan that would lose a pinned "
    "recall applies nothing unless ``confirm_lost_pins=true``; the run ends as a dry run "
    "whose plan waits for review (``stats.waits`` names the pins; ``GET .../plan`` lists "
    "them in ``pins``), applied with ``POST /api/maintenance/runs/{id}/apply``, which asks "
    "first. Confirmed, its audit events say which pins it lost."
)


def _maintenance_start(job: Job) -> None:
    """``POST /maintenance/<kind>``, whose body's ``params`` is the job's own schema: a
    bad or unknown parameter is a 422 naming it, before any run is created."""

    def start(
        request: HttpRequest, body: JobIn, confirm_lost_pins: ConfirmLostPins = False
    ) -> Status:
        require_role(request, ADMIN)
        run = job_start(
            kind=job.kind,
            actor=Actor.from_request(request),
            dry_run=body.dry_run,
            params=body.params,
            confirm_lost_pins=confirm_lost_pins,
        )
        return Status(202, run)

    start.__annotations__["body"] = job_in(job.kind, job.params)  # ninja reads it from here
    router.post(
        f"/maintenance/{job.kind}",
        response={202: RunOut, **errors(409, 503)},
        tags=["maintenance"],
        operation_id=f"maintenance_start_{job.kind}",
        summary=f"Start: {job.title}",
        description=f"{job.description} Runs in the worker (admin); ``dry_run`` reports "
        "what it would do and changes nothing. Poll ``/api/maintenance/runs/{id}``."
        + (GUARDED_START if job.apply is not None else ""),
    )(start)


for _job in JOBS.values():
    _maintenance_start(_job)


@router.post("/maintenance/{job}", response=errors(), include_in_schema=False)
def maintenance_start_unknown(request: HttpRequest, job: str) -> None:
    """Every job has its own route above; this one names the jobs there are."""
    require_role(request, ADMIN)
    raise UnknownJob(list(JOBS))
