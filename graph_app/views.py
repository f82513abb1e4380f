"""HTML front door of the knowledge graph."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from graph_app import selectors
from graph_app.knowledge import EntityNotFound, GraphUnavailable, InvalidIdentifier
from memory_app.views import _page
from qqweb.auth import VIEWER, role_required

SORTS = [("mentions", "most mentioned"), ("last_seen", "last seen"), ("first_seen", "first seen")]


@require_GET
@role_required(VIEWER)
def index(request: HttpRequest) -> HttpResponse:
    return render(request, "graph_app/index.html", {"graph": selectors.graph_overview()})


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
    if context["page"] and context["page"].next_cursor:
        query = request.GET.copy()
        query["cursor"] = context["page"].next_cursor
        context["next_query"] = query.urlencode()
    return _page(request, "graph_app/entities.html", "entities-table", context, status)


@require_GET
@role_required(VIEWER)
def entity(request: HttpRequest, label: str, name: str) -> HttpResponse:
    try:
        detail = selectors.entity_detail(label=label, name=name)
    except (EntityNotFound, InvalidIdentifier) as e:
        return render(request, "memory_app/not_found.html", {"error": e}, status=404)
    return render(request, "graph_app/entity.html", {"e": detail})
