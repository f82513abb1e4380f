"""HTML front door of the facts writes: create, edit, delete, embed, restore, the
next-start pair actions, contradiction verdicts and the vanished-facts scan.

Every write form posts here (htmx: into ``#write-preview``, or, on the next-start review,
into the pair's own row: the ``pair`` partial, asking in words, with Cancel). The view
calls one service: done, it redirects with a message that carries an Undo button;
"Preview" (``dry_run``) or a write that would also
archive facts not confirmed yet renders the preview with a form that re-sends the same
fields plus those ids. Errors render in the same place with their status (for htmx
requests 200, so htmx swaps them in; ``data-status`` keeps the code)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from memory_app.facts import selectors, services
from memory_app.facts.lib.errors import FactChanged
from memory_app.facts.plan_effects import (
    PinsOfPlan,
    deletion_effect,
    resolution_effect,
    write_effect,
)
from memory_app.facts.services import FactAction, NeedsConfirmation
from memory_app.facts.views import facts_on
from qqweb.audit.messages import done_with_undo
from qqweb.jobs.errors import JobBusy
from qqweb.lib.actors import Actor
from qqweb.lib.auth import CURATOR, VIEWER, role_required
from qqweb.lib.errors import InvalidInput, Refused
from qqweb.lib.pages import redirect_back

Run = Callable[[Collection[str], bool], FactAction]


def _done(request: HttpRequest, url: str) -> HttpResponse:
    if getattr(request, "htmx", False):
        response = HttpResponse(status=204)
        response["HX-Redirect"] = url
        return response
    return redirect(url)


def _pair_of(request: HttpRequest) -> tuple[str, str] | None:
    """The next-start pair a write was sent from (its row's forms post both ids)."""
    anchor_id, deleted_id = request.POST.get("anchor_id", ""), request.POST.get("deleted_id", "")
    return (anchor_id, deleted_id) if anchor_id and deleted_id else None


def _pair_done(
    request: HttpRequest, pair: tuple[str, str], text: str, *, event_id: int | None
) -> HttpResponse:
    """A write done from a row of the next-start list stays on the list: for htmx the row
    is replaced in place by what was done, with its Undo (the ``pair`` partial, as
    ``#pair-<anchor>-<deleted>``); without JavaScript the list comes back at the row that
    took its place (the form's ``next``), the message and its Undo on top."""
    row_id = "pair-{}-{}".format(*pair)
    listing = reverse("facts_app:next_start")
    if not getattr(request, "htmx", False):
        done_with_undo(request, text, event_id=event_id)
        return redirect_back(request, f"{listing}#{row_id}")
    undo = reverse("memory_app:audit_undo", args=[event_id]) if event_id else ""
    context = {"row_id": row_id, "resolved": text, "undo_url": undo, "back": f"{listing}#{row_id}"}
    return render(request, "facts_app/next_start.html#pair", context)


def _write(
    request: HttpRequest,
    run: Run,
    *,
    fields: dict[str, str],
    done_url: str,
    what: str,
    question: str = "",
    yes: str = "",
    done: str = "",
    pins: PinsOfPlan | None = None,
) -> HttpResponse:
    """Run a write from its form; see the module docstring. A form of a next-start pair
    (``anchor_id`` and ``deleted_id`` posted, htmx) gets its preview or error in that
    pair's row, asking ``question``, its button saying ``yes``. Done, the message says
    ``done`` (else "<what>: done") and carries an Undo button."""
    context: dict[str, Any] = {
        "action_url": request.path,
        "fields": fields,
        "what": what,
        "question": question or f"{what}?",
        "yes": yes or "Yes",
        "cancel_url": done_url,  # Cancel goes back where the write would have gone
    }
    status = 200
    try:
        result = run(request.POST.getlist("archive"), "preview" in request.POST)
    except NeedsConfirmation as e:
        context["plan"] = e.plan
    except Refused as e:  # an invalid value (400), no such fact (404), changed (409) ...
        context["error"] = str(e)
        context["replaced_by"] = getattr(e, "replaced_by", "")  # the fact in its place
        status = e.status
    else:
        if result.applied:
            more = len(result.plan.resolutions)
            archived = f"; also archived {more} more (see the archive)" if more else ""
            text = f"{done or f'{what}: done'}{archived}."
            if pair := _pair_of(request):
                return _pair_done(request, pair, text, event_id=result.event_id)
            done_with_undo(request, text, event_id=result.event_id)
            if result.fact_id:
                done_url = reverse("facts_app:fact_detail", args=[result.fact_id])
            return _done(request, done_url)
        context["plan"] = result.plan
    context["status"] = status
    if "plan" in context:  # what the write would do to the pins
        context["pins"] = (pins or write_effect)(context["plan"])
    htmx = getattr(request, "htmx", False)
    anchor_id, deleted_id = _pair_of(request) or ("", "")
    if htmx and anchor_id and deleted_id:
        row = selectors.next_start_row(anchor_id=anchor_id, deleted_id=deleted_id)
        context.update(row=row, row_id=f"pair-{anchor_id}-{deleted_id}", confirming=True)
        return render(request, "facts_app/next_start.html#pair", context)
    template = "facts_app/write.html#write-preview" if htmx else "facts_app/write.html"
    return render(request, template, context, status=200 if htmx else status)


@require_http_methods(["GET", "POST"])
@role_required(CURATOR)
@facts_on
def fact_new(request: HttpRequest) -> HttpResponse:
    if request.method != "POST":
        return render(request, "facts_app/new.html", {})
    content = request.POST.get("content", "")
    return _write(
        request,
        lambda confirm, dry: services.fact_create(
            actor=Actor.from_request(request), content=content, confirm=confirm, dry_run=dry
        ),
        fields={"content": content},
        done_url=reverse("facts_app:facts"),
        what="New fact",
    )


@require_POST
@role_required(CURATOR)
@facts_on
def fact_edit(request: HttpRequest, fact_id: str) -> HttpResponse:
    fields = {k: request.POST.get(k, "") for k in ("expected_content", "content")}
    pair = {k: request.POST[k] for k in ("anchor_id", "deleted_id", "next") if request.POST.get(k)}
    return _write(
        request,
        lambda confirm, dry: services.fact_edit(
            actor=Actor.from_request(request),
            fact_id=fact_id,
            expected_content=fields["expected_content"],
            content=fields["content"],
            confirm=confirm,
            dry_run=dry,
        ),
        fields={**fields, **pair},
        done_url=reverse("facts_app:fact_detail", args=[fact_id]),
        what="Edit",
        question="Save this text for the fact?" if pair else "",
        yes="Yes, save it",
    )


@require_POST
@role_required(CURATOR)
@facts_on
def fact_delete(request: HttpRequest, fact_id: str) -> HttpResponse:
    return _write(
        request,
        lambda confirm, dry: services.fact_delete(
            actor=Actor.from_request(request), fact_id=fact_id, confirm=confirm, dry_run=dry
        ),
        fields={},
        done_url=reverse("facts_app:facts"),
        what="Delete (archived first)",
        pins=deletion_effect(fact_id),
    )


@require_POST
@role_required(CURATOR)
@facts_on
def fact_embed(request: HttpRequest, fact_id: str) -> HttpResponse:
    return _write(
        request,
        lambda confirm, dry: services.fact_embed(
            actor=Actor.from_request(request), fact_id=fact_id, confirm=confirm, dry_run=dry
        ),
        fields={},
        done_url=reverse("facts_app:fact_detail", args=[fact_id]),
        what="Embed the legacy fact",
    )


@require_POST
@role_required(CURATOR)
@facts_on
def pair_resolve(request: HttpRequest) -> HttpResponse:
    fields = {k: request.POST.get(k, "") for k in ("anchor_id", "deleted_id", "how", "next")}
    return _write(
        request,
        lambda confirm, dry: services.pair_resolve(
            actor=Actor.from_request(request),
            anchor_id=fields["anchor_id"],
            deleted_id=fields["deleted_id"],
            how=fields["how"],
            confirm=confirm,
            dry_run=dry,
        ),
        fields=fields,
        done_url=reverse("facts_app:next_start"),
        what=selectors.PAIR_QUESTIONS.get(fields["how"], "Resolve the pair").rstrip("?"),
        question=selectors.PAIR_QUESTIONS.get(fields["how"], ""),
        yes=selectors.PAIR_CONFIRM.get(fields["how"], ""),
        done=selectors.PAIR_DONE.get(fields["how"], ""),
        pins=resolution_effect(
            anchor_id=fields["anchor_id"], deleted_id=fields["deleted_id"], how=fields["how"]
        ),
    )


@require_GET
@role_required(VIEWER)
@facts_on
def archive(request: HttpRequest) -> HttpResponse:
    restored = request.GET.get("restored") == "1"
    rows = selectors.archived_facts(restored=restored)
    return render(request, "facts_app/archive.html", {"rows": rows, "restored": restored})


@require_POST
@role_required(CURATOR)
@facts_on
def archive_restore(request: HttpRequest, archive_id: int) -> HttpResponse:
    return _write(
        request,
        lambda confirm, dry: services.fact_restore(
            actor=Actor.from_request(request), archive_id=archive_id, confirm=confirm, dry_run=dry
        ),
        fields={},
        done_url=reverse("facts_app:archive"),
        what="Restore",
    )


@require_GET
@role_required(VIEWER)
@facts_on
def contradictions(request: HttpRequest) -> HttpResponse:
    dismissed = request.GET.get("dismissed") == "1"
    rows = selectors.contradictions(include_dismissed=dismissed)
    return render(request, "facts_app/contradictions.html", {"rows": rows, "dismissed": dismissed})


VERDICT_DONE = {
    "both-true": 'Remembered: both are true (the pair is hidden under "both true")',
    "contradiction": "Remembered: a contradiction (edit or delete one of the two to end it)",
}


@require_POST
@role_required(CURATOR)
@facts_on
def contradiction_verdict(request: HttpRequest) -> HttpResponse:
    verdict = request.POST.get("verdict", "")
    try:
        event = services.contradiction_verdict(
            actor=Actor.from_request(request),
            a_id=request.POST.get("a_id", ""),
            b_id=request.POST.get("b_id", ""),
            verdict=verdict,
        )
    except (InvalidInput, FactChanged) as e:
        messages.error(request, str(e))
    else:
        text = VERDICT_DONE.get(verdict, "Remembered")
        done_with_undo(request, f"{text}.", events=[event])
    return _done(request, reverse("facts_app:contradictions"))


@require_GET
@role_required(VIEWER)
@facts_on
def vanished(request: HttpRequest) -> HttpResponse:
    return render(request, "facts_app/vanished.html", {"rows": selectors.vanished_facts()})


@require_POST
@role_required(CURATOR)
@facts_on
def vanished_scan(request: HttpRequest) -> HttpResponse:
    try:
        report = services.vanished_scan_run(actor=Actor.from_request(request))
    except (JobBusy, services.ScanCancelled) as e:  # another scan runs; this one was cancelled
        messages.error(request, str(e))
        return _done(request, reverse("facts_app:vanished"))
    messages.success(
        request, f"Scanned {report.seen} facts: {report.vanished} vanished since the last scan."
    )
    return _done(request, reverse("facts_app:vanished"))
