"""HTML front door of core.md, notes.md and the promotion candidates."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from memory_app.notes import selectors, services
from memory_app.notes.errors import CoreItemNotFound
from memory_app.notes.forms import CoreItemForm
from memory_app.notes.lib import NoteNotFound
from qqweb.audit.messages import done_with_undo
from qqweb.audit.services import events_recorded
from qqweb.lib.actors import Actor
from qqweb.lib.auth import CURATOR, VIEWER, has_role, role_required
from qqweb.lib.errors import InvalidInput


@require_GET
@role_required(VIEWER)
def core(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "memory_app/core.html",
        {"view": selectors.core_view(), "can_curate": has_role(request.user, CURATOR)},
    )


def _file_change(
    request: HttpRequest, change: Callable[..., Any], done: str, **fields: str
) -> HttpResponse:
    """Call one core.md / notes.md service with the posted item; say how it went."""
    values = {name: request.POST.get(posted, "") for name, posted in fields.items()}
    try:
        with events_recorded() as events:
            change(actor=Actor.from_request(request), **values)
    except (InvalidInput, CoreItemNotFound) as e:
        messages.error(request, f"Not changed: {e}")
    else:
        done_with_undo(request, done, events=events)
    return redirect("memory_app:core")


@require_POST
@role_required(CURATOR)
def core_item_add(request: HttpRequest) -> HttpResponse:
    form = CoreItemForm(request.POST)
    if not form.is_valid():
        messages.error(
            request,
            "Not added: "
            + "; ".join(f"{k}: {' '.join(str(m) for m in v)}" for k, v in form.errors.items()),
        )
        return redirect("memory_app:core")
    return _file_change(
        request,
        services.core_item_add,
        f"Added to core.md under {form.cleaned_data['category']}.",
        category="category",
        content="content",
    )


@require_POST
@role_required(CURATOR)
def core_item_remove(request: HttpRequest) -> HttpResponse:
    return _file_change(
        request,
        services.core_item_remove,
        "Removed from core.md.",
        category="section",
        content="content",
    )


@require_POST
@role_required(CURATOR)
def working_item_remove(request: HttpRequest) -> HttpResponse:
    return _file_change(
        request,
        services.working_item_remove,
        "Removed from notes.md.",
        section="section",
        content="content",
    )


@require_POST
@role_required(CURATOR)
def working_item_edit(request: HttpRequest) -> HttpResponse:
    return _file_change(
        request,
        services.working_item_edit,
        "Saved in notes.md.",
        section="section",
        content="content",
        new_content="new_content",
    )


@require_POST
@role_required(CURATOR)
def candidate_verdict(request: HttpRequest, note_id: str) -> HttpResponse:
    actor = Actor.from_request(request)
    try:
        with events_recorded() as events:
            if request.POST.get("verdict") == "approve":
                item = services.promotion_approve(
                    actor=actor, note_id=note_id, category=request.POST.get("category") or None
                )
                done = f"Promoted to core.md under {item.category}."
            elif request.POST.get("verdict") == "reject":
                services.promotion_reject(actor=actor, note_id=note_id)
                done = "Not for core; it will not be proposed again."
            else:
                messages.error(request, "verdict: approve or reject")
                return redirect("memory_app:core")
    except (InvalidInput, NoteNotFound) as e:
        messages.error(request, str(e))
        return redirect("memory_app:core")
    done_with_undo(request, done, events=events)
    return redirect("memory_app:core")
