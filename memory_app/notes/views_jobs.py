"""The Jobs page (admin; its URLs stay under /maintenance/): run, dry-run, progress,
schedule, and each run's page."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from memory_app.notes.forms import JobForm
from memory_app.notes.selectors.jobs import (
    decay_agent_comparison,
    jobs_overview,
    run_detail,
)
from memory_app.notes.selectors.plan_effects import run_plan_effect
from memory_app.notes.selectors.plans import plan_expired, plans_waiting
from memory_app.notes.services.jobs import schedule_update
from qqweb.audit.selectors import batch_undo_events
from qqweb.jobs.errors import RunRefused
from qqweb.jobs.models import Run
from qqweb.jobs.registry import JOBS, plan_job
from qqweb.jobs.runs import run_cancel
from qqweb.jobs.starting import job_start, plan_apply_start, run_undo_start, waits_for_worker
from qqweb.lib.actors import Actor
from qqweb.lib.auth import ADMIN, VIEWER, has_role, role_required
from qqweb.lib.errors import Refused
from qqweb.lib.pages import render_page
from qqweb.recall.confirm import pins_first
from qqweb.recall.undo_effects import undo_effects


def _context(request: HttpRequest, bound: JobForm | None = None) -> dict[str, Any]:
    """The page's data, each job row with its form (``bound``, with its errors, for its job)."""
    context = {
        **jobs_overview(jobs=JOBS.values()),
        "plans_waiting": plans_waiting(),
        "schedule_max_share": f"{100 * settings.QQ_SCHEDULE_MAX_SHARE:g}%",
        "is_admin": has_role(request.user, ADMIN),
    }
    context["jobs"] = [
        (row, bound if bound and bound.kind == row.job.kind else _form(row.job.kind))
        for row in context["jobs"]
    ]
    return context


def _form(kind: str, data: Any = None) -> JobForm:
    job = JOBS[kind]
    return JobForm(data, schema=job.params, kind=kind, destructive=job.apply is not None)


@require_GET
@role_required(VIEWER)
def maintenance(request: HttpRequest) -> HttpResponse:
    return render_page(request, "memory_app/jobs.html", "runs-table", _context(request))


@require_POST
@role_required(ADMIN)
def maintenance_start(request: HttpRequest, kind: str) -> HttpResponse:
    """Start a run with the parameters of the job's form; a bad one re-renders the page
    (its form only, for htmx) with the message next to the field, and starts nothing."""
    if kind not in JOBS:
        raise Http404(f"there is no job {kind}")
    form = _form(kind, request.POST)
    if not form.is_valid():
        context = {**_context(request, bound=form), "form": form}
        return render_page(request, "memory_app/jobs.html", "job-form", context, status=400)
    destructive = JOBS[kind].apply is not None
    try:
        run = job_start(
            kind=kind,
            actor=Actor.from_request(request),
            # a destructive job starts as a dry run: its page shows the plan to apply
            dry_run=form.cleaned_data["dry_run"] or destructive,
            params=form.params,
        )
    except Refused as e:
        messages.error(request, str(e))
        return redirect("memory_app:maintenance")
    what = "Preview" if destructive else ("Dry run" if run.dry_run else "Run")
    messages.success(request, f"{what} #{run.pk} of the {JOBS[kind].title.lower()} queued.")
    return redirect("memory_app:maintenance_run", run_id=run.pk)


CHANGED_SHOWN = 20  # the changed notes an expired plan names (the rest: the notes list)

# runs whose undo brings notes back, each kept from the archival pass for a grace period
BRINGS_BACK = ("archival", "auto_consolidation")


@require_GET
@role_required(VIEWER)
def maintenance_run(request: HttpRequest, run_id: int) -> HttpResponse:
    """A run: its progress (polled while it is open), its plan 200 rows a page
    (``?page=``, plain links: a page reads its own rows from the database, not the plan),
    what became of it. A plan that can still be applied is also checked whole (expired,
    pins it would lose): those are about all of its notes."""
    run = get_object_or_404(Run.objects.defer("plan"), pk=run_id)
    page = request.GET.get("page", "1")
    try:
        if not (page.isascii() and page.isdigit()):
            raise RunRefused("page: must be a whole number, 1 or more")
        detail = run_detail(run=run, has_plan_job=plan_job(run.kind) is not None, page=int(page))
    except RunRefused as e:
        return render(request, "memory_app/not_found.html", {"error": str(e)}, status=400)
    changed = plan_expired(run=run) if detail.can_apply else []
    expired = len(changed)
    context = {
        "d": detail,
        "expired": expired,
        # which notes changed, the latest first: the first CHANGED_SHOWN, and how many more
        "changed": changed[:CHANGED_SHOWN],
        "changed_more": max(0, expired - CHANGED_SHOWN),
        # what the plan would do to the pinned recalls, while it can still be applied
        "pins": run_plan_effect(run) if detail.can_apply and not expired else None,
        "decay_comparison": decay_agent_comparison(run=run) if run.kind == "decay" else None,
        "is_admin": has_role(request.user, ADMIN),
        "no_worker": waits_for_worker(run),
        # the notes an undo of an archival or a merge brings back are kept from archival
        "undo_grace_days": settings.QQ_RESTORE_GRACE_DAYS if run.kind in BRINGS_BACK else None,
    }
    return render_page(request, "memory_app/run.html", "run-detail", context)


@require_POST
@role_required(ADMIN)
def maintenance_run_apply(request: HttpRequest, run_id: int) -> HttpResponse:
    """Apply exactly the plan of a dry run, in the worker; then show the new run."""
    try:
        run = plan_apply_start(actor=Actor.from_request(request), run_id=run_id)
    except Refused as e:
        messages.error(request, str(e))
        return redirect("memory_app:maintenance_run", run_id=run_id)
    messages.success(request, f"Run #{run.pk} applies the plan of dry run #{run_id}.")
    return redirect("memory_app:maintenance_run", run_id=run.pk)


@require_POST
@role_required(ADMIN)
def maintenance_run_cancel(request: HttpRequest, run_id: int) -> HttpResponse:
    """Cancel a queued run, or ask a running one to stop at its next batch."""
    try:
        run = run_cancel(actor=Actor.from_request(request), run_id=run_id)
    except Refused as e:
        messages.error(request, str(e))
        return redirect("memory_app:maintenance_run", run_id=run_id)
    messages.success(
        request,
        f"Run #{run.pk} cancelled."
        if run.status == Run.CANCELLED
        else f"Run #{run.pk} stops at its next batch.",
    )
    return redirect("memory_app:maintenance_run", run_id=run.pk)


@require_POST
@role_required(ADMIN)
def maintenance_schedule(request: HttpRequest, task_id: int) -> HttpResponse:
    try:
        schedule_update(
            actor=Actor.from_request(request),
            task_id=task_id,
            minute=request.POST.get("minute", "").strip(),
            hour=request.POST.get("hour", "").strip(),
            day_of_week=request.POST.get("day_of_week", "").strip(),
            enabled=request.POST.get("enabled") == "on",
            apply=request.POST.get("apply") == "on",
        )
        messages.success(request, "Schedule saved.")
    except Refused as e:
        messages.error(request, f"Not saved: {e}")
    return redirect("memory_app:maintenance")


@require_POST
@role_required(ADMIN)
def maintenance_run_undo(request: HttpRequest, run_id: int) -> HttpResponse:
    """Undo everything a run changed (its audit batch), in the worker, as a run of its
    own whose page shows the progress. One that would lose a pinned recall asks first."""
    asked = pins_first(
        request,
        lambda: undo_effects(
            event
            for batch in Run.objects.filter(pk=run_id).values_list("batch_id", flat=True)
            for event in batch_undo_events(batch)
        ),
        question=f"Undo run #{run_id}?",
        yes="Undo it all the same",
        cancel_url=reverse("memory_app:maintenance_run", args=[run_id]),
        then="Undoing it all the same can itself be undone from the audit log.",
    )
    if asked is not None:
        return asked
    try:
        undo = run_undo_start(actor=Actor.from_request(request), run_id=run_id)
    except Refused as e:
        messages.error(request, str(e))
        return redirect("memory_app:maintenance_run", run_id=run_id)
    kept = ""
    if undo.undo_of is not None and undo.undo_of.kind in BRINGS_BACK:
        days = settings.QQ_RESTORE_GRACE_DAYS
        kept = (
            f" The notes it brings back are kept from the archival pass for {days} days "
            "(QQ_RESTORE_GRACE_DAYS); a note's page ends that grace period."
        )
    messages.success(request, f"Run #{undo.pk} undoes run #{run_id}.{kept}")
    return redirect("memory_app:maintenance_run", run_id=undo.pk)
