"""HTML front door of the knowledge graph."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from graph_app.selectors import graph_overview
from qqweb.auth import VIEWER, role_required


@require_GET
@role_required(VIEWER)
def index(request: HttpRequest) -> HttpResponse:
    return render(request, "graph_app/index.html", {"graph": graph_overview()})
