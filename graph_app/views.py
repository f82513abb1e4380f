"""HTML front door of the knowledge graph."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET

from graph_app import selectors
from graph_app.knowledge import EntityNotFound, GraphUnavailable, InvalidIdentifier
from graph_app.knowledge.errors import InvalidGraphValue
from qqweb.lib.auth import VIEWER, role_required
from qqweb.lib.errors import DimensionMismatch, InvalidInput
from qqweb.lib.pages import render_page
from qqweb.lib.positions import list_position, page_offset

SORTS = [("mentions", "most mentioned"), ("last_seen", "last seen"), ("first_seen", "first seen")]


@require_GET
@role_required(VIEWER)
def index(request: HttpRequest) -> HttpResponse:
    graph = selectors.graph_overview(with_entities=True)
    return render(request, "graph_app/index.html", {"graph": graph})


@require_GET
@role_required(VIEWER)
def entities(request: HttpRequest) -> HttpResponse:
    params = {k: request.GET.get(k, "")[:200] for k in ("label", "q", "sort", "cursor")}
    context: dict[str, Any] = {
        "params": params,
        "sorts": SORTS,
        "page": None,
        "error": "",
        "graph": selectors.graph_overview(),
    }
    status = 200
    try:
        context["page"] = selectors.entities_page(
            label=params["label"] or None,
            q=params["q"] or None,
            sort=params["sort"] or "mentions",
            cursor=params["cursor"] or None,
        )
    except InvalidIdentifier as e:
        context["error"], status = str(e), 400
    except GraphUnavailable as e:
        context["error"], status = e.message, 503
    if context["page"]:
        context["position"] = list_position(
            offset=page_offset(request),
            shown=len(context["page"].items),
            total=_entities_total(context["graph"], params["label"], params["q"]),
        )
    if context["page"] and context["page"].next_cursor:
        query = request.GET.copy()
        query["cursor"] = context["page"].next_cursor
        query["pos"] = str(context["position"].last)
        context["next_query"] = query.urlencode()
    return render_page(request, "graph_app/entities.html", "entities-table", context, status)


@require_GET
@role_required(VIEWER)
def relationships(request: HttpRequest) -> HttpResponse:
    """The relationships between entities, of one ``type`` or all: what the graph's
    counts by type open; a bad type is a 400 naming it."""
    rel_type = request.GET.get("type", "")[:200]
    graph = selectors.graph_overview()
    context: dict[str, Any] = {"type": rel_type, "graph": graph, "page": None, "error": ""}
    status = 200
    try:
        page = selectors.relationships_page(
            rel_type=rel_type or None, cursor=request.GET.get("cursor") or None
        )
    except InvalidIdentifier as e:
        context["error"], status = str(e), 400
    except GraphUnavailable as e:
        context["error"], status = e.message, 503
    else:
        counts = dict(getattr(graph, "by_relationship_type", None) or [])
        total = counts.get(rel_type, 0) if rel_type else getattr(graph, "relationships", None)
        shown = len(page.items)
        context["page"] = page
        context["position"] = list_position(offset=page_offset(request), shown=shown, total=total)
        if page.next_after:
            query = request.GET.copy()
            query["cursor"], query["pos"] = page.next_after, str(context["position"].last)
            context["next_query"] = query.urlencode()
    return render_page(
        request, "graph_app/relationships.html", "relationships-table", context, status
    )


def _entities_total(graph: Any, label: str, q: str) -> int | None:
    """The list's total from the overview's counts (Neo4j's count store: no scan); a name
    search is not counted (it would read every entity of the label)."""
    if q or not getattr(graph, "available", False):
        return None
    return dict(graph.by_label).get(label, 0) if label else int(graph.entities)


@require_GET
@role_required(VIEWER)
def entity_names(request: HttpRequest) -> HttpResponse:
    """``#merge-names``: a datalist of up to 10 entity names of ``source_label`` containing
    ``source_name``, most mentioned first (the merge form's autocomplete)."""
    label = request.GET.get("source_label", "")[:200].strip() or None
    text = request.GET.get("source_name", "")[:200]
    try:
        page = selectors.entities_page(label=label, q=text or None, limit=10)
        names = [e.name for e in page.items]
    except InvalidIdentifier:
        names = []
    return render(request, "graph_app/entity.html#merge-names", {"merge_names": names})


@require_GET
@role_required(VIEWER)
def entity(request: HttpRequest, label: str, name: str) -> HttpResponse:
    try:
        detail = selectors.entity_detail(label=label, name=name)
    except EntityNotFound as e:
        renamed_to = selectors.entity_renamed_to(label=label, name=name)
        if renamed_to is not None:  # the old name of a renamed entity: go to the new one
            return redirect("graph_app:entity", label=label, name=renamed_to)
        renamed_back = selectors.entity_renamed_back(label=label, name=name)
        if renamed_back is not None:  # a rename that was undone: the name it has again
            messages.info(request, f"“{name}” was renamed back to “{renamed_back}”.")
            return redirect("graph_app:entity", label=label, name=renamed_back)
        return render(request, "memory_app/not_found.html", {"error": e}, status=404)
    except InvalidIdentifier as e:
        return render(request, "memory_app/not_found.html", {"error": e}, status=404)
    return render(request, "graph_app/entity.html", {"e": detail})


@require_GET
@role_required(VIEWER)
def search(request: HttpRequest) -> HttpResponse:
    """Semantic entity search: the query embedded with the configured model, compared with
    the entities' ``"name: description"`` embeddings of the same dimension only."""
    params = {k: request.GET.get(k, "")[:500] for k in ("q", "label")}
    context: dict[str, Any] = {"params": params, "found": None, "error": ""}
    status = 200
    if params["q"].strip():
        try:
            context["found"] = selectors.entities_search(
                query=params["q"], label=params["label"] or None
            )
        except (DimensionMismatch, InvalidInput, InvalidIdentifier) as e:
            context["error"], status = str(e), 400
        except GraphUnavailable as e:
            context["error"], status = e.message, 503
    return render_page(request, "graph_app/search.html", "entity-results", context, status)


@require_GET
@role_required(VIEWER)
def neighbourhood(request: HttpRequest, label: str, name: str) -> HttpResponse:
    """The interactive graph around an entity. The first view is in the page (as JSON in a
    ``<script type="application/json">``), expanding a node asks the JSON API."""
    try:
        depth = int(request.GET.get("depth", "1"))
        limit = int(request.GET.get("limit", "60"))
    except ValueError:
        depth, limit = 0, 0
    try:
        found = selectors.neighbourhood(label=label, name=name, depth=depth, limit=limit)
    except EntityNotFound as e:
        return render(request, "memory_app/not_found.html", {"error": e}, status=404)
    except (InvalidIdentifier, InvalidGraphValue) as e:
        return render(request, "memory_app/not_found.html", {"error": e}, status=400)
    return render(
        request,
        "graph_app/neighbourhood.html",
        {"n": found, "data": found.as_json(), "label": label, "name": name},
    )


@require_GET
@role_required(VIEWER)
def orphans(request: HttpRequest) -> HttpResponse:
    return render(request, "graph_app/orphans.html", {"orphans": selectors.orphans(500)})
