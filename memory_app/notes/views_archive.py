"""HTML front door of archive.jsonl: browse, restore (admin), purge (admin)."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from memory_app.notes import selectors, services
from memory_app.notes.forms import archive_filter
from memory_app.notes.job_params import MAX_DAYS
from memory_app.notes.lib import NoteNotFound, RestoreConflict
from qqweb.audit.messages import done_with_undo
from qqweb.audit.services import events_recorded
from qqweb.lib.actors import Actor
from qqweb.lib.auth import ADMIN, VIEWER, has_role, role_required
from qqweb.lib.errors import EmbeddingDimensionConflict, InvalidInput
from qqweb.lib.pages import render_page


@require_GET
@role_required(VIEWER)
def archive(request: HttpRequest) -> HttpResponse:
    """The archive's lines, searched (``q``) and filtered as its counts link to:
    ``reason`` (a reason's group), ``section``, ``month`` (YYYY-MM archived),
    ``include_restored`` / ``restored_only``; a bad value is a 400 naming it."""
    query = request.GET.get("q", "")[:500]
    before = request.GET.get("before", "")
    try:
        flt, start = archive_filter(request.GET)
    except InvalidInput as e:
        error = f"{e.field}: {e.message}"
        return render(request, "memory_app/not_found.html", {"error": error}, status=400)
    view = selectors.archive_browse(query=query, flt=flt, before=start)
    older = request.GET.copy()
    older["before"] = str(view.older)
    return render_page(
        request,
        "memory_app/archive.html",
        "archive-table",
        {
            "view": view,
            "q": query,
            "flt": flt,
            "include_restored": flt.include_restored,
            "before": before,
            "older_query": older.urlencode(),
            "is_admin": has_role(request.user, ADMIN),
        },
    )


@require_http_methods(["GET", "POST"])
@role_required(ADMIN)
def archive_restore(request: HttpRequest, note_id: str) -> HttpResponse:
    """GET: what would come back, and whether the id is taken. POST: restore."""
    try:
        preview = selectors.archive_restore_preview(note_id=note_id)
    except NoteNotFound as e:
        return render(request, "memory_app/not_found.html", {"error": e}, status=404)
    if request.method == "GET":
        return render(request, "memory_app/archive_restore.html", {"preview": preview})
    new_id = request.POST.get("new_id") or None
    keep_days = request.POST.get("keep_days", "").strip()
    try:
        if keep_days and not keep_days.isdigit():
            raise InvalidInput("keep_days", "give a whole number of days (0: no grace period)")
        with events_recorded() as events:
            note = services.note_restore(
                actor=Actor.from_request(request),
                note_id=note_id,
                new_id=new_id,
                keep_days=int(keep_days) if keep_days else None,
            )
    except InvalidInput as e:
        return render(
            request, "memory_app/archive_restore.html", {"preview": preview, "error": e}, status=400
        )
    except (RestoreConflict, EmbeddingDimensionConflict) as e:
        return render(
            request, "memory_app/archive_restore.html", {"preview": preview, "error": e}, status=409
        )
    except NoteNotFound as e:  # purged or undone while it was being restored
        return render(request, "memory_app/not_found.html", {"error": e}, status=404)
    done_with_undo(
        request,
        f"Restored {note.note_id}, re-embedded, with its provenance.",
        events=events,
    )
    return redirect("memory_app:note_detail", note_id=note.note_id)


@require_POST
@role_required(ADMIN)
def archive_restore_many(request: HttpRequest) -> HttpResponse:
    ids = request.POST.getlist("note_ids")
    result = services.archive_restore_many(actor=Actor.from_request(request), note_ids=ids)
    done_with_undo(
        request,
        f"Restored {len(result.done)} notes (batch {result.batch_id}).",
        batch_id=result.batch_id if result.done else None,
    )
    for note_id, error in result.failed:
        messages.error(request, f"{note_id}: {error}")
    return redirect("memory_app:archive")


@require_POST
@role_required(ADMIN)
def archive_purge(request: HttpRequest) -> HttpResponse:
    """Count first: the lines it would drop, their texts, and the pinned recalls it
    would lose (a merged note's line is the way to the note that kept its text); then,
    confirmed, drop them."""
    try:
        days = int(request.POST.get("days", ""))
        if request.POST.get("confirmed") != "on":
            preview = selectors.archive_purge_preview(days=days)
            return render(request, "memory_app/_purge_confirm.html", {"preview": preview})
        with events_recorded() as events:
            result = services.archive_purge(actor=Actor.from_request(request), days=days)
    except (ValueError, InvalidInput):
        return render(
            request,
            "memory_app/_purge_confirm.html",
            {"error": f"days: give a whole number of days, 0 to {MAX_DAYS}"},
            status=400,
        )
    done_with_undo(
        request,
        f"Purged {result['dropped']} archive lines older than {days} days.",
        events=events,
    )
    response = HttpResponse(status=204)
    response["HX-Redirect"] = "/archive/"
    return response
