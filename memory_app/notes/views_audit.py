"""The Audit page: every curation action, filtered, with Undo for one action or a whole
batch (thin views over the audit app's selectors and services)."""

from __future__ import annotations

import uuid
from collections.abc import Callable

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from memory_app.notes.forms import AuditFilterForm
from qqweb.audit import selectors as audit_selectors
from qqweb.audit import services as audit_services
from qqweb.audit.errors import UndoForbidden, UndoRefused
from qqweb.audit.models import AuditEvent
from qqweb.lib.actors import Actor
from qqweb.lib.auth import CURATOR, VIEWER, has_role, role_required, user_role
from qqweb.lib.errors import StoreUnavailable
from qqweb.lib.pages import back_path, redirect_back, render_page
from qqweb.recall.confirm import pins_first
from qqweb.recall.undo_effects import undo_effects


@require_GET
@role_required(VIEWER)
def audit(request: HttpRequest) -> HttpResponse:
    form = AuditFilterForm(request.GET, actions=audit_selectors.audit_actions())
    data = form.cleaned_data if form.is_valid() else {}
    page = audit_selectors.audit_page(
        actor=data.get("actor", ""),
        action=data.get("action", ""),
        target=data.get("target", ""),
        batch=data.get("batch"),
        before=data.get("before"),
    )
    older = request.GET.copy()
    older["before"] = str(page.next_before)
    context = {
        "form": form,
        "page": page,
        "events": audit_selectors.with_target_pages(page.events),
        "batch": data.get("batch"),
        "older_query": older.urlencode() if page.next_before else "",
        "can_curate": has_role(request.user, CURATOR),
        "may_undo": audit_selectors.undoable_by(events=page.events, role=user_role(request.user)),
    }
    return render_page(request, "memory_app/audit.html", "audit-table", context)


def _pins_first(
    request: HttpRequest, events: Callable[[], list[AuditEvent]]
) -> HttpResponse | None:
    return pins_first(
        request,
        lambda: undo_effects(events()),
        question="Undo it?",
        yes="Undo it all the same",
        cancel_url=back_path(request, reverse("memory_app:audit")),
        then="Undoing it all the same can itself be undone from the audit log.",
    )


@require_POST
@role_required(CURATOR)
def audit_undo(request: HttpRequest, event_id: int) -> HttpResponse:
    """Undo one action; an undo that would lose a pinned recall (it archives a restored
    note again, removes an added one) asks first."""
    asked = _pins_first(request, lambda: audit_selectors.undo_events(event_id))
    if asked is not None:
        return asked
    try:
        audit_services.audit_undo(actor=Actor.from_request(request), event_id=event_id)
        messages.success(request, "Undone.")
    except (UndoRefused, UndoForbidden, StoreUnavailable) as e:
        messages.error(request, str(e))
    return redirect_back(request, reverse("memory_app:audit"))


@require_POST
@role_required(CURATOR)
def audit_batch_undo(request: HttpRequest, batch_id: uuid.UUID) -> HttpResponse:
    """Undo every action of one batch (a bulk action, a merge, a maintenance run; the Undo
    button after a bulk action, the Audit page's batch view). One that would lose a pinned
    recall asks first."""
    asked = _pins_first(request, lambda: audit_selectors.batch_undo_events(batch_id))
    if asked is not None:
        return asked
    try:
        undone, refused = audit_services.batch_undo(
            actor=Actor.from_request(request), batch_id=batch_id
        )
    except (UndoForbidden, StoreUnavailable) as e:
        messages.error(request, str(e))
        return redirect_back(request, reverse("memory_app:audit"))
    messages.success(request, f"Undid {undone} change{pluralize(undone)}.")
    for reason in refused[:20]:
        messages.error(request, reason)
    return redirect_back(request, reverse("memory_app:audit"))
