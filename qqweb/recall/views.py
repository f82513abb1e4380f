"""The Memory tests page: the pins with their latest result, recall@k and MRR per memory,
the history of the runs; curators run them, pin, import a labelled set and unpin, each
with the Undo the dashboard offers everywhere."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from qqweb.audit.messages import done_with_undo
from qqweb.audit.models import AuditEvent
from qqweb.audit.services import events_recorded
from qqweb.lib.actors import Actor
from qqweb.lib.auth import CURATOR, VIEWER, role_required
from qqweb.lib.errors import InvalidInput, Refused
from qqweb.lib.pages import redirect_back, render_page
from qqweb.recall.jobs import memory_tests_cancel, memory_tests_start
from qqweb.recall.models import Pin, TestRun
from qqweb.recall.selectors import memory_tests_page, run_result_rows, run_sources, stored_run
from qqweb.recall.services import (
    MAX_IMPORT_BYTES,
    pin_create,
    pin_delete,
    pins_import,
)

PAGE = "recall/memory_tests.html"
RESULTS = "memory-tests-results"


@require_GET
@role_required(VIEWER)
def memory_tests(request: HttpRequest) -> HttpResponse:
    return render_page(request, PAGE, RESULTS, {"page": memory_tests_page(), **_pin_form(request)})


PIN_FIELDS = {"query": "Question", "item_id": "Must recall", "source": "Memory"}


def _in_words(error: Refused) -> str:
    """A refusal named by the form's label ("Must recall: ..."), not by its field's key."""
    if isinstance(error, InvalidInput):
        return f"{PIN_FIELDS.get(error.field, error.field.capitalize())}: {error.message}"
    return str(error)


def _pin_form(request: HttpRequest, error: str = "") -> dict[str, Any]:
    """The pin form's values: what was posted (a refused pin keeps it), its Memory the
    one the curator came from (``?source=``), else the notes."""
    given = request.POST if request.method == "POST" else request.GET
    values = {k: given.get(k, "") for k in ("query", "item_id", "comment")}
    return {"pin_input": {**values, "source": given.get("source") or "notes"}, "pin_error": error}


@require_POST
@role_required(CURATOR)
def run_now(request: HttpRequest) -> HttpResponse:
    """Start a run of every pin in the worker; htmx gets the results fragment back, with
    the run's progress (polled until it ends), a plain form the page."""
    run = memory_tests_start(actor=Actor.from_request(request), trigger=TestRun.PAGE)
    if getattr(request, "htmx", False):
        return render_page(request, PAGE, RESULTS, {"page": memory_tests_page()})
    messages.success(request, f"Memory tests run #{run.pk} started: its results show here.")
    return redirect("recall:memory_tests")


@require_POST
@role_required(CURATOR)
def run_cancel(request: HttpRequest, job_id: int) -> HttpResponse:
    """Cancel the memory tests run ``job_id`` (it stores nothing)."""
    memory_tests_cancel(actor=Actor.from_request(request), run_id=job_id)
    if getattr(request, "htmx", False):
        return render_page(request, PAGE, RESULTS, {"page": memory_tests_page()})
    messages.success(request, "Memory tests run cancelled: it stores nothing.")
    return redirect("recall:memory_tests")


@require_POST
@role_required(CURATOR)
def pin(request: HttpRequest) -> HttpResponse:
    """Pin a recall; refused, the page shows why in the form, with what was typed kept."""
    try:
        made, events = _pin(request)
    except Refused as e:
        context = {"page": memory_tests_page(), **_pin_form(request, _in_words(e))}
        return render(request, PAGE, context, status=e.status)
    done_with_undo(request, f"Pinned: “{made.query}” → {made.item_id}.", events=events)
    return redirect_back(request, reverse("recall:memory_tests"))


def _pin(request: HttpRequest) -> tuple[Pin, list[AuditEvent]]:
    with events_recorded() as events:
        made = pin_create(
            actor=Actor.from_request(request),
            query=request.POST.get("query", ""),
            item_id=request.POST.get("item_id", ""),
            source=request.POST.get("source", "notes"),
            comment=request.POST.get("comment", ""),
        )
    return made, events


@require_POST
@role_required(CURATOR)
def pins_import_view(request: HttpRequest) -> HttpResponse:
    """A JSONL file (or pasted lines): every line checked, then pinned as one batch."""
    uploaded = request.FILES.get("file")
    if uploaded is not None and uploaded.size and uploaded.size > MAX_IMPORT_BYTES:
        raise InvalidInput("file", f"is larger than {MAX_IMPORT_BYTES:,} bytes")
    raw = uploaded.read() if uploaded is not None else request.POST.get("lines", "").encode()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InvalidInput("file", "is not UTF-8 text") from e
    result = pins_import(actor=Actor.from_request(request), text=text)
    already = f"; {result.already} pinned already" if result.already else ""
    done_with_undo(
        request,
        f"Imported {len(result.created)} pins{already}.",
        batch_id=result.batch_id if result.created else None,
    )
    return redirect("recall:memory_tests")


@require_POST
@role_required(CURATOR)
def unpin(request: HttpRequest, pin_id: int) -> HttpResponse:
    with events_recorded() as events:
        pin_delete(actor=Actor.from_request(request), pin_id=pin_id)
    done_with_undo(request, "Unpinned.", events=events)
    return redirect_back(request, reverse("recall:memory_tests"))


@require_GET
@role_required(VIEWER)
def run_detail(request: HttpRequest, run_id: int) -> HttpResponse:
    """One stored run with every pin's result as it was."""
    run = stored_run(run_id)
    context = {"run": run, "results": run_result_rows(run), "sources": run_sources(run)}
    return render_page(request, "recall/run.html", "run-results", context)
