"""HTML front door of the near-duplicate review queue."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from memory_app.notes import selectors, services
from memory_app.notes.selectors.plan_effects import review_pin_effects
from qqweb.audit.messages import done_with_undo
from qqweb.jobs.models import Run
from qqweb.jobs.params import InvalidJobParams
from qqweb.jobs.starting import job_start, waits_for_worker
from qqweb.lib.actors import Actor
from qqweb.lib.auth import ADMIN, CURATOR, VIEWER, has_role, role_required
from qqweb.lib.errors import QQError
from qqweb.lib.pages import render_page


def _pair_id(request: HttpRequest) -> int | None:
    value = request.GET.get("pair", "")
    return int(value) if value.isdigit() else None


@require_GET
@role_required(VIEWER)
def review(request: HttpRequest) -> HttpResponse:
    preview = bool(request.GET.get("preview"))
    item = selectors.review_next(
        pair_id=_pair_id(request),
        content=request.GET.get("content") or None,
        primary_id=request.GET.get("primary") or None,
        suggest_both=not preview and "content" not in request.GET,
    )
    can_curate = has_role(request.user, CURATOR)
    open_scan = selectors.open_scan()
    context: dict[str, Any] = {
        "item": item,
        "last_decided": (
            selectors.review_last_decided(actor=Actor.from_request(request)) if can_curate else None
        ),
        "calibration": selectors.review_calibration(),
        "scan": selectors.latest_scan(),
        "open_scan": open_scan,
        "no_worker": waits_for_worker(open_scan),
        "threshold": settings.QQ_DEDUP_THRESHOLD,
        "can_curate": can_curate,
        "can_scan": has_role(request.user, ADMIN),
        "llm_configured": bool(settings.QQ_LLM_URL),
        # "each says something the other does not": the merged text offered keeps both
        "merge_text": item.merged_both if item is not None and not preview else "",
        # what the merge shown, and the supersede, would do to the pinned recalls
        "pins": review_pin_effects(
            primary_id=item.plan.primary_id,
            secondary_id=item.plan.secondary_id,
            newer_id=item.newer_id,
            text_changed=item.plan.content_changed,
        )
        if item is not None
        else None,
    }
    fragment = "merge-preview" if preview else "review-pair"
    return render_page(request, "memory_app/review.html", fragment, context)


@require_GET
@role_required(CURATOR)
def review_llm_text(request: HttpRequest, pair_id: int) -> HttpResponse:
    """The merged-text field, filled with the LLM's suggestion for the curator to read
    and edit (the preview follows it); a failure is said in place of the suggestion."""
    context: dict[str, Any] = {"item": {"pair": {"pk": pair_id}}, "llm_configured": True}
    try:
        suggestion = selectors.review_llm_text(
            pair_id=pair_id, primary_id=request.GET.get("primary") or None
        )
        context.update(merge_text=suggestion.content, llm_model=suggestion.model)
    except QQError as e:  # no such pair, no LLM, the LLM down
        context.update(merge_text=request.GET.get("content", ""), llm_error=str(e))
    return render(request, "memory_app/review.html#merge-text", context)


VERDICT_DONE = {
    "merged": "Merged; {primary} kept.",
    "superseded": "Kept the newer text ({primary}); the older note is archived.",
    "rejected": "Remembered: not a duplicate.",
    "skipped": "Skipped; it comes back later.",
}


@require_POST
@role_required(CURATOR)
def review_verdict(request: HttpRequest, pair_id: int) -> HttpResponse:
    try:
        pair = services.review_verdict(
            actor=Actor.from_request(request),
            pair_id=pair_id,
            verdict=request.POST.get("verdict", ""),
            primary_id=request.POST.get("primary") or None,
            content=request.POST.get("content") or None,
        )
    except QQError as e:
        messages.error(request, str(e))
        return redirect("memory_app:review")
    done_with_undo(
        request, VERDICT_DONE[pair.status].format(primary=pair.primary), event_id=pair.event_id
    )
    return redirect("memory_app:review")


@require_POST
@role_required(CURATOR)
def review_back(request: HttpRequest) -> HttpResponse:
    """Back: take back the curator's latest verdict; its pair is shown again."""
    try:
        pair = services.review_back(actor=Actor.from_request(request))
    except QQError as e:
        messages.error(request, str(e))
        return redirect("memory_app:review")
    messages.success(request, "Took back the last verdict; the pair is in the queue again.")
    return redirect(f"{reverse('memory_app:review')}?pair={pair.pk}")


@require_POST
@role_required(ADMIN)
def review_scan(request: HttpRequest) -> HttpResponse:
    """Start a dedup scan, incremental unless "Full scan" is ticked; the threshold is
    checked by the job's schema (empty: the setting's), a bad one is a 400 with the reason."""
    given: dict[str, object] = {"full": bool(request.POST.get("full"))}
    if request.POST.get("threshold"):
        given["threshold"] = request.POST["threshold"]
    try:
        run = job_start(kind="dedup_scan", actor=Actor.from_request(request), params=given)
    except InvalidJobParams as e:
        return render(
            request, "memory_app/review.html#scan-progress", {"scan_error": str(e)}, status=400
        )
    context = {"scan": run, "poll": True, "can_scan": True, "no_worker": waits_for_worker(run)}
    return render(request, "memory_app/review.html#scan-progress", context)


@require_GET
@role_required(VIEWER)
def review_scan_progress(request: HttpRequest, run_id: int) -> HttpResponse:
    """The progress of the scan this page started (the only one it polls)."""
    run = get_object_or_404(Run, pk=run_id, kind="dedup_scan")
    context = {
        "scan": run,
        "poll": True,
        "can_scan": has_role(request.user, ADMIN),
        "no_worker": waits_for_worker(run),
    }
    response = render(request, "memory_app/review.html#scan-progress", context)
    if run.status in Run.CLOSED and request.GET.get("polling"):
        response["HX-Refresh"] = "true"  # the queue changed: show it
    return response
