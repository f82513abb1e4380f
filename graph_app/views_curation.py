"""HTML front door of graph curation. Each view calls one service from
``graph_app.services``; previews are the same service with ``dry_run``.

Every action lands in the audit log with undo; the message after it says so."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import NoReverseMatch, reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from graph_app import selectors, services
from graph_app.knowledge import EntityNotFound, GraphUnavailable, InvalidIdentifier
from graph_app.knowledge.errors import AmbiguousEntity, EntityChanged, GraphRefusal
from memory_app.memory import DimensionMismatch
from qqweb.actors import Actor
from qqweb.auth import CURATOR, VIEWER, role_required

# Told to the curator as a message. A GraphStoreError (a bug) is not among them: it is
# a 500, logged with its traceback.
REFUSALS = (GraphRefusal, GraphUnavailable, DimensionMismatch)


def _entity_url(label: str, name: str) -> str:
    return reverse("graph_app:entity", args=[label, name])


def _entity_url_or_index(label: str, name: str) -> str:
    """The entity's page, or the graph's when the fields name no entity (empty, a "/")."""
    try:
        return _entity_url(label, name)
    except NoReverseMatch:
        return reverse("graph_app:index")


def _undo_note(audit_id: int | None) -> str:
    return f" Undo it from the audit log (event {audit_id})." if audit_id else ""


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
        messages.success(request, "Saved and re-embedded." + _undo_note(done.audit_id))
    return redirect(_entity_url(label, done.state.name))


@require_http_methods(["GET", "POST"])
@role_required(CURATOR)
def entity_merge(request: HttpRequest) -> HttpResponse:
    """GET: the preview of merging ``source`` into ``target``. POST: the merge."""
    data = request.POST if request.method == "POST" else request.GET
    source = (data.get("source_label", ""), data.get("source_name", ""))
    target = (data.get("target_label", ""), data.get("target_name", ""))
    description = data.get("description") or None
    context: dict[str, Any] = {
        "source": source,
        "target": target,
        "description": description,
        "back": _entity_url_or_index(*target),
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
            404
            if isinstance(e, EntityNotFound)
            else 409
            if isinstance(e, EntityChanged | AmbiguousEntity)
            else 400
        )
        return render(request, "graph_app/merge.html", context, status=status)
    if outcome.applied:
        messages.success(
            request,
            f"Merged {source[0]} {source[1]!r} into {target[0]} {target[1]!r}."
            + _undo_note(outcome.audit_id),
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
        messages.success(request, f"Deleted the {label} {name!r}." + _undo_note(outcome.audit_id))
        return redirect("graph_app:entities")
    return render(request, "graph_app/delete.html", {"plan": outcome})


@require_POST
@role_required(CURATOR)
def relationship_change(request: HttpRequest) -> HttpResponse:
    """Edit (``action=edit``) or delete (``action=delete``) ``(start)-[:type]->(end)``."""
    post = request.POST
    start = (post.get("start_label", ""), post.get("start_name", ""))
    end = (post.get("end_label", ""), post.get("end_name", ""))
    back = _entity_url(*end) if post.get("back") == "end" else _entity_url(*start)
    actor = Actor.from_request(request)
    try:
        if post.get("action") == "delete":
            done = services.relationship_delete(
                actor=actor, start=start, rel_type=post.get("type", ""), end=end
            )
            messages.success(request, "Relationship deleted." + _undo_note(done.audit_id))
        else:
            changes: dict[str, Any] = {
                k: post[k] for k in services.RELATIONSHIP_TEXT_FIELDS if k in post
            }
            if post.get("confidence", "").strip():
                try:
                    changes["confidence"] = float(post["confidence"])
                except ValueError:
                    changes["confidence"] = post["confidence"]
            done = services.relationship_update(
                actor=actor,
                start=start,
                rel_type=post.get("type", ""),
                end=end,
                new_type=post.get("new_type", "").strip() or None,
                changes=changes,
            )
            messages.success(request, "Relationship saved." + _undo_note(done.audit_id))
    except (*REFUSALS, InvalidIdentifier) as e:
        _refused(request, "Not changed", e)
    return redirect(back)


@require_GET
@role_required(VIEWER)
def duplicates(request: HttpRequest) -> HttpResponse:
    context: dict[str, Any] = {"candidates": [], "error": ""}
    try:
        context["candidates"] = selectors.duplicate_candidates()
    except GraphUnavailable as e:
        context["error"] = e.message
    context["threshold"] = settings.QQ_GRAPH_DUPLICATE_THRESHOLD
    return render(request, "graph_app/duplicates.html", context)


@require_POST
@role_required(CURATOR)
def duplicates_verdict(request: HttpRequest) -> HttpResponse:
    post = request.POST
    a = (post.get("a_label", ""), post.get("a_name", ""))
    b = (post.get("b_label", ""), post.get("b_name", ""))
    try:
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
        messages.success(request, "Merged." + _undo_note(result.audit_id))
    else:
        messages.success(request, "Remembered: these two are not duplicates.")
    return redirect("graph_app:duplicates")
