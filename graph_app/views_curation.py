"""HTML front door of graph curation. Each view calls one service from
``graph_app.services``; previews are the same service with ``dry_run``.

Every action lands in the audit log with undo; the message after it has an Undo button.

How long they take, and what the curator sees meanwhile (issue 37). Measured through these
views on the demo graph (the most linked entities, ~20 relationships; hashed embedder, the
2-core test machine): a rename 3.2 s the first time (the embedder and the vector index
warm up; with the real model its first load is several seconds more), 0.1-0.3 s after; a
merge 1.7 s and its undo 1.3 s; a delete and its undo 0.5 s. So they can pass a second,
and each is one request that either finishes or is refused whole. The choice: the form
says so while it waits, not a job. Its button counts the seconds ("Renaming… (3 s)") and a
line under it says what is happening ("Writing the entity and re-embedding it"), from the
form's ``data-busy`` and ``data-busy-line`` (static/qqweb/busy.js; the Undo buttons too).
A job would add a worker round trip, a run page and polling to an action that is one
transaction and seconds long, and split the audit event from the request that made it;
the running time shown is honest (counted in the page), a percentage would not be (the
write has no steps to count)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import NoReverseMatch, reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from graph_app import selectors, services
from graph_app.forms import MergeForm, RelationshipForm, form_errors
from graph_app.knowledge import EntityNotFound, GraphUnavailable, InvalidIdentifier
from graph_app.knowledge.errors import AmbiguousEntity, EntityChanged, GraphRefusal
from qqweb.audit.messages import done_with_undo
from qqweb.audit.services import events_recorded
from qqweb.lib.actors import Actor
from qqweb.lib.auth import CURATOR, VIEWER, role_required
from qqweb.lib.errors import DimensionMismatch

# Told to the curator as a message. A GraphStoreError (a bug) is not among them: it is
# a 500, logged with its traceback.
REFUSALS = (GraphRefusal, GraphUnavailable, DimensionMismatch)


def _entity_url(label: str, name: str) -> str:
    """The entity's page; the entities list for a name no URL can hold (one with a line
    break, written by the agent)."""
    try:
        return reverse("graph_app:entity", args=[label, name])
    except NoReverseMatch:
        return reverse("graph_app:entities")


def _refused(request: HttpRequest, what: str, error: Exception) -> None:
    messages.error(request, f"{what}: {error}")


@require_http_methods(["GET", "POST"])
@role_required(CURATOR)
def entity_update(request: HttpRequest, label: str, name: str) -> HttpResponse:
    """GET: the preview of the edit or rename (the aliases after it, and what the agent
    does with the old name). POST: the edit."""
    data = request.POST if request.method == "POST" else request.GET
    new_name = data.get("name", "").strip() or None
    try:
        done = services.entity_update(
            actor=Actor.from_request(request),
            label=label,
            name=name,
            description=data.get("description"),
            new_name=new_name,
            dry_run=request.method == "GET",
        )
    except REFUSALS as e:
        _refused(request, "Not saved", e)
        return redirect(_entity_url(label, name))
    if request.method == "GET":
        context = {"label": label, "name": name, "plan": done}
        return render(request, "graph_app/rename.html", context)
    if done.audit_id is None:
        messages.info(request, "Nothing changed.")
    else:
        done_with_undo(request, "Saved and re-embedded.", event_id=done.audit_id)
    return redirect(_entity_url(label, done.state.name))


@require_http_methods(["GET", "POST"])
@role_required(CURATOR)
def entity_merge(request: HttpRequest) -> HttpResponse:
    """GET: the preview of merging ``source`` into ``target``. POST: the merge."""
    form = MergeForm(request.POST if request.method == "POST" else request.GET)
    if not form.is_valid():
        refused = {"error": form_errors(form), "back": reverse("graph_app:duplicates")}
        return render(request, "qqweb/refused.html", refused, status=400)
    data = form.cleaned_data
    source = (data["source_label"], data["source_name"])
    target = (data["target_label"], data["target_name"])
    description = data["description"] or None
    context: dict[str, Any] = {
        "source": source,
        "target": target,
        "target_url": _entity_url(*target),
        "description": description,
    }
    try:
        outcome = services.entity_merge(
            actor=Actor.from_request(request),
            source=source,
            target=target,
            description=description,
            dry_run=request.method == "GET",
        )
    except REFUSALS as e:
        context["error"] = str(e)
        status = (
            503
            if isinstance(e, GraphUnavailable)
            else 404
            if isinstance(e, EntityNotFound)
            else 409
            if isinstance(e, EntityChanged | AmbiguousEntity)
            else 400
        )
        return render(request, "graph_app/merge.html", context, status=status)
    if outcome.applied:
        done_with_undo(
            request,
            f"Merged {source[0]} {source[1]!r} into {target[0]} {target[1]!r}.",
            event_id=outcome.audit_id,
        )
        return redirect(_entity_url(*target))
    return render(request, "graph_app/merge.html", {**context, "plan": outcome})


@require_http_methods(["GET", "POST"])
@role_required(CURATOR)
def entity_delete(request: HttpRequest, label: str, name: str) -> HttpResponse:
    """GET: what deleting would remove and leave orphaned. POST: the delete."""
    try:
        outcome = services.entity_delete(
            actor=Actor.from_request(request),
            label=label,
            name=name,
            dry_run=request.method == "GET",
        )
    except EntityNotFound as e:
        return render(request, "memory_app/not_found.html", {"error": e}, status=404)
    except REFUSALS as e:
        _refused(request, "Not deleted", e)
        return redirect(_entity_url(label, name))
    if outcome.applied:
        done_with_undo(request, f"Deleted the {label} {name!r}.", event_id=outcome.audit_id)
        return redirect("graph_app:entities")
    return render(request, "graph_app/delete.html", {"plan": outcome})


@require_POST
@role_required(CURATOR)
def relationship_change(request: HttpRequest) -> HttpResponse:
    """Edit (``action=edit``) or delete (``action=delete``) ``(start)-[:type]->(end)``."""
    form = RelationshipForm(request.POST)
    if not form.is_valid():
        refused = {"error": form_errors(form), "back": reverse("graph_app:entities")}
        return render(request, "qqweb/refused.html", refused, status=400)
    data = form.cleaned_data
    start = (data["start_label"], data["start_name"])
    end = (data["end_label"], data["end_name"])
    back = _entity_url(*end) if data["back"] == "end" else _entity_url(*start)
    actor = Actor.from_request(request)
    try:
        if data["action"] == "delete":
            done = services.relationship_delete(
                actor=actor, start=start, rel_type=data["type"], end=end
            )
            done_with_undo(request, "Relationship deleted.", event_id=done.audit_id)
        else:
            done = services.relationship_update(
                actor=actor,
                start=start,
                rel_type=data["type"],
                end=end,
                new_type=data["new_type"].strip() or None,
                changes=form.changes(request.POST, services.RELATIONSHIP_TEXT_FIELDS),
            )
            done_with_undo(request, "Relationship saved.", event_id=done.audit_id)
    except (*REFUSALS, InvalidIdentifier) as e:
        _refused(request, "Not changed", e)
    return redirect(back)


@require_GET
@role_required(VIEWER)
def duplicates(request: HttpRequest) -> HttpResponse:
    """The candidates; with Neo4j down, the outage page (503) as every graph page
    (``qqweb.middleware.QQErrorMiddleware``), not an empty list under the driver's text."""
    context: dict[str, Any] = {
        "candidates": selectors.duplicate_candidates(),
        "threshold": settings.QQ_GRAPH_DUPLICATE_THRESHOLD,
    }
    return render(request, "graph_app/duplicates.html", context)


@require_POST
@role_required(CURATOR)
def duplicates_verdict(request: HttpRequest) -> HttpResponse:
    post = request.POST
    a = (post.get("a_label", ""), post.get("a_name", ""))
    b = (post.get("b_label", ""), post.get("b_name", ""))
    try:
        with events_recorded() as events:
            result = services.entity_pair_verdict(
                actor=Actor.from_request(request),
                a=a,
                b=b,
                verdict=post.get("verdict", ""),
                keep=post.get("keep", "a"),
            )
    except REFUSALS as e:
        _refused(request, "Not done", e)
        return redirect("graph_app:duplicates")
    if isinstance(result, services.MergeOutcome):
        done_with_undo(request, "Merged.", event_id=result.audit_id)
    else:
        done_with_undo(request, "Remembered: these two are not duplicates.", events=events)
    return redirect("graph_app:duplicates")
