"""HTML front door of the notes memory: thin views over selectors and services."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from memory_app.notes import selectors, services
from memory_app.notes.forms import (
    BulkForm,
    NoteCreateForm,
    NoteEditForm,
    NoteFilterForm,
    PromoteForm,
    SearchForm,
)
from memory_app.notes.lib import NoteNotFound
from memory_app.notes.lib.errors import StaleWrite
from memory_app.notes.lib.listing import NotesCount
from memory_app.notes.lib.replica.lists import ListLoading
from memory_app.notes.selectors.edits import stale_edit
from memory_app.notes.selectors.plan_effects import ARCHIVED_BY_ARCHIVE, notes_removal_effect
from memory_app.notes.selectors.plans import plans_waiting
from qqweb.audit import selectors as audit_selectors
from qqweb.audit.messages import done_with_undo
from qqweb.audit.services import events_recorded
from qqweb.lib.actors import Actor
from qqweb.lib.auth import CURATOR, VIEWER, has_role, role_required, user_role
from qqweb.lib.errors import DimensionMismatch, InvalidInput, QQError, StoreUnavailable
from qqweb.lib.links import entities_reader
from qqweb.lib.pages import render_page
from qqweb.lib.positions import list_position, page_offset
from qqweb.lib.sources import memory_sources
from qqweb.recall.confirm import pins_first
from qqweb.recall.selectors import pinned_for, pins_of_item


@require_GET
@role_required(VIEWER)
def overview(request: HttpRequest) -> HttpResponse:
    memory = selectors.memory_overview()
    insights = None
    if "mongodb" not in memory.errors:
        try:
            threshold = (
                float(request.GET.get("threshold", "")) if request.GET.get("threshold") else None
            )
        except ValueError:
            threshold = None
        if threshold is not None and not 0 <= threshold <= 1:
            threshold = None
        insights = selectors.memory_insights(archive_threshold=threshold)
    return render(
        request,
        "memory_app/overview.html",
        {
            "memory": memory,
            "graph": entities_reader().graph_summary(),
            "insights": insights,
            "plans_waiting": plans_waiting(),
            "pictures_loading": insights is None and "mongodb" not in memory.errors,
            "other_sources": [s.summary() for s in memory_sources(exclude=("notes",))],
        },
    )


@require_GET
@role_required(VIEWER)
def notes(request: HttpRequest) -> HttpResponse:
    form = NoteFilterForm(request.GET)
    context: dict[str, Any] = {
        "form": form,
        "page": None,
        "error": "",
        "can_curate": has_role(request.user, CURATOR),
    }
    status = 400 if form.errors else 200
    if form.is_valid():
        try:
            flt = form.note_filter()
            context["page"] = selectors.notes_list(
                flt=flt,
                sort=form.cleaned_data["sort"] or "updated",
                direction=form.cleaned_data["direction"] or "desc",
                cursor=form.cleaned_data["cursor"] or None,
                limit=50,
            )
            page = context["page"]
            total = (
                NotesCount(page.total) if page.total is not None else selectors.notes_count(flt=flt)
            )
            context["position"] = list_position(
                offset=page.offset if page.offset is not None else page_offset(request),
                shown=len(page.items),
                total=total.value,
                capped=total.capped,
            )
        except InvalidInput as e:
            context["error"], status = str(e), 400
        except StoreUnavailable as e:
            context["error"], status = str(e), 503
            context["retry"] = isinstance(e, ListLoading)
    if context["page"] and context["page"].next_cursor:
        query = request.GET.copy()
        query["cursor"] = context["page"].next_cursor
        query["pos"] = str(context["position"].last)
        context["next_query"] = query.urlencode()
    return render_page(request, "memory_app/notes.html", "notes-table", context, status)


@require_POST
@role_required(CURATOR)
def notes_bulk(request: HttpRequest) -> HttpResponse:
    form, filter_form = BulkForm(request.POST), NoteFilterForm(request.POST)
    if not form.is_valid() or not filter_form.is_valid():
        return render(
            request,
            "memory_app/_bulk_confirm.html",
            {"form": form, "error": form.error_words() or filter_form.errors.as_text()},
            status=400,
        )
    data = form.cleaned_data
    ids = data["note_ids"] if data["scope"] == "selected" else None
    flt = filter_form.note_filter() if data["scope"] == "matching" else None
    if not data["confirmed"]:
        preview = services.notes_bulk_preview(note_ids=ids, flt=flt, action=data["action"])
        return render(
            request,
            "memory_app/_bulk_confirm.html",
            {"form": form, "preview": preview, "count": preview.count, "post": request.POST},
        )
    # The list to go back to, made before anything is written: the posted query string,
    # parsed and encoded again (a raw CR/LF would make the header, and the answer, fail).
    back = reverse("memory_app:notes") + "?" + QueryDict(request.POST.get("query", "")).urlencode()
    try:
        result = services.notes_bulk(
            actor=Actor.from_request(request),
            action=data["action"],
            note_ids=ids,
            flt=flt,
            importance=data["importance"],
            section=data["to_section"] or None,
        )
    except InvalidInput as e:
        return render(
            request, "memory_app/_bulk_confirm.html", {"form": form, "error": e}, status=400
        )
    done_with_undo(
        request,
        bulk_done_words(
            data["action"], result, importance=data["importance"], section=data["to_section"]
        ),
        batch_id=result.batch_id if result.done else None,
    )
    response = HttpResponse(status=204)
    response["HX-Redirect"] = back
    return response


def bulk_done_words(
    action: str, result: Any, *, importance: float | None, section: str | None
) -> str:
    """What a bulk action did, in words: "Archived 2 notes", "Moved 1 note to Key Topics;
    1 failed"."""
    done = len(result.done)
    notes = f"{done} note{'' if done == 1 else 's'}"
    said = {
        "archive": f"Archived {notes}",
        "set_importance": f"Set the importance of {notes} to {importance:g}"
        if importance is not None
        else f"Set the importance of {notes}",
        "move_section": f"Moved {notes} to {section or 'another section'}",
    }[action]
    failed = f"; {len(result.failed)} failed" if result.failed else ""
    return f"{said}{failed}."


@require_GET
@role_required(VIEWER)
def note_detail(request: HttpRequest, note_id: str) -> HttpResponse:
    try:
        detail = selectors.note_detail(note_id=note_id)
    except NoteNotFound as e:
        return render(request, "memory_app/not_found.html", {"error": e}, status=404)
    return render(
        request,
        "memory_app/note_detail.html",
        {
            "detail": detail,
            "note": detail.note,
            "can_curate": has_role(request.user, CURATOR),
            "may_undo": audit_selectors.undoable_by(
                events=detail.history, role=user_role(request.user)
            ),
            "edit_form": NoteEditForm(
                initial={
                    "expected_updated_at": (
                        detail.note.updated_at.isoformat() if detail.note.updated_at else ""
                    ),
                    "content": detail.note.content,
                    "section": detail.note.section,
                    "importance": detail.note.importance,
                    "base_content": detail.note.content,
                    "base_section": detail.note.section,
                    "base_importance": detail.note.importance,
                }
            ),
            "promote_form": PromoteForm(initial={"category": detail.suggested_category}),
            "pins": pins_of_item("notes", note_id),
        },
    )


@require_POST
@role_required(CURATOR)
def note_edit(request: HttpRequest, note_id: str) -> HttpResponse:
    form = NoteEditForm(request.POST)
    url = reverse("memory_app:note_detail", args=[note_id])
    if not form.is_valid():
        messages.error(
            request,
            "Not saved: "
            + "; ".join(f"{k}: {' '.join(str(m) for m in v)}" for k, v in form.errors.items()),
        )
        return redirect(url)
    data = form.cleaned_data
    try:
        with events_recorded() as events:
            services.note_edit(
                actor=Actor.from_request(request),
                note_id=note_id,
                expected_updated_at=data["expected_updated_at"].replace(tzinfo=None),
                content=data["content"],
                section=data["section"],
                importance=data["importance"],
                base=form.base(),
            )
    except StaleWrite as e:
        stale = stale_edit(current=e.current, mine=data, base=form.base())
        context = {"error": e, "stale": stale, "note_id": note_id}
        return render(request, "memory_app/stale_edit.html", context, status=409)
    except (InvalidInput, NoteNotFound, DimensionMismatch) as e:
        messages.error(request, f"Not saved: {e}")
        return redirect(url)
    if events:
        done_with_undo(request, "Saved. The change is in the note's history.", events=events)
    else:
        messages.info(request, "Nothing changed.")
    return redirect(url)


@require_http_methods(["GET", "POST"])
@role_required(CURATOR)
def note_create(request: HttpRequest) -> HttpResponse:
    """GET: the form. POST: add the note (embedded with the configured model) and open it."""
    form = NoteCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            with events_recorded() as events:
                note = services.note_create(
                    actor=Actor.from_request(request),
                    content=data["content"],
                    section=data["section"],
                    importance=data["importance"],
                )
        except (InvalidInput, DimensionMismatch) as e:
            form.add_error(None, str(e))
        else:
            done_with_undo(request, f"Added {note.note_id}.", events=events)
            return redirect("memory_app:note_detail", note_id=note.note_id)
    status = 400 if request.method == "POST" else 200
    return render(request, "memory_app/note_create.html", {"form": form}, status=status)


@require_POST
@role_required(CURATOR)
def note_keep(request: HttpRequest, note_id: str) -> HttpResponse:
    """Keep the note from the archival pass for N days (0: end its grace period)."""
    days, stamp = request.POST.get("keep_days", "").strip(), request.POST.get("updated_at", "")
    try:
        if not days.isdigit():
            raise InvalidInput("keep_days", "give a whole number of days (0: no grace period)")
        with events_recorded() as events:
            note = services.note_keep(
                actor=Actor.from_request(request),
                note_id=note_id,
                expected_updated_at=datetime.fromisoformat(stamp),
                keep_days=int(days),
            )
    except ValueError:
        messages.error(request, "Not changed: updated_at: reload the page and try again")
    except (InvalidInput, NoteNotFound, StaleWrite) as e:
        messages.error(request, f"Not changed: {e}")
    else:
        until = note.extra.get("qqweb_keep_until")
        text = (
            f"Kept from archival until {until:%Y-%m-%d %H:%M} UTC."
            if until
            else ("No grace period: the next archival pass may archive it.")
        )
        done_with_undo(request, text, events=events)
    return redirect("memory_app:note_detail", note_id=note_id)


@require_POST
@role_required(CURATOR)
def note_archive(request: HttpRequest, note_id: str) -> HttpResponse:
    """Archive the note; one that a passing pin is recalled through asks first, naming
    the pin it would lose (qqweb.recall.confirm)."""
    asked = pins_first(
        request,
        lambda: [
            notes_removal_effect([note_id], gone=ARCHIVED_BY_ARCHIVE, subject="Archiving this note")
        ],
        question="Archive this note?",
        yes="Archive it all the same",
        cancel_url=reverse("memory_app:note_detail", args=[note_id]),
        then="Archiving it all the same can be undone from the audit log, which brings it back.",
    )
    if asked is not None:
        return asked
    try:
        with events_recorded() as events:
            services.note_archive(actor=Actor.from_request(request), note_id=note_id)
    except (NoteNotFound, StaleWrite) as e:
        messages.error(request, f"Not archived: {e}")
        return redirect("memory_app:note_detail", note_id=note_id)
    done_with_undo(request, f"Archived {note_id}.", events=events)
    return redirect("memory_app:notes")


@require_POST
@role_required(CURATOR)
def note_promote(request: HttpRequest, note_id: str) -> HttpResponse:
    form = PromoteForm(request.POST)
    try:
        category = form.cleaned_data["category"] if form.is_valid() else None
        with events_recorded() as events:
            item = services.core_promote(
                actor=Actor.from_request(request), note_id=note_id, category=category
            )
        done_with_undo(request, f"Promoted to core.md under {item.category}.", events=events)
    except (InvalidInput, NoteNotFound) as e:
        messages.error(request, f"Not promoted: {e}")
    return redirect("memory_app:note_detail", note_id=note_id)


@require_GET
@role_required(VIEWER)
def search(request: HttpRequest) -> HttpResponse:
    form = SearchForm(request.GET or None)
    context: dict[str, Any] = {"form": form, "outcome": None, "error": ""}
    if form.is_valid():
        try:
            context["outcome"] = selectors.notes_search(
                query=form.cleaned_data["q"],
                section=form.cleaned_data["section"] or None,
                min_score=form.cleaned_data["min_score"],
            )
        except QQError as e:
            context["error"] = str(e)
        query = form.cleaned_data["q"]
        context["other_results"] = [s.search(query, 10) for s in memory_sources(exclude=("notes",))]
    return render_page(
        request, "memory_app/search.html", "search-results", context, 400 if form.errors else 200
    )


@require_GET
@role_required(VIEWER)
def retrieval(request: HttpRequest) -> HttpResponse:
    message = request.GET.get("message", "")[:4000]
    context: dict[str, Any] = {"message": message, "preview": None, "error": ""}
    if message.strip():
        context["preview"] = selectors.retrieval_preview(message=message)
        context["pinned"] = pinned_for("notes", message)
    elif "message" in request.GET:
        context["error"] = "message: type the message the agent would receive"
    return render_page(
        request,
        "memory_app/retrieval.html",
        "retrieval-preview",
        context,
        400 if context["error"] else 200,
    )
