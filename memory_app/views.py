"""HTML front door of the notes memory."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from graph_app.selectors import graph_overview
from memory_app.selectors import memory_overview
from qqweb.auth import VIEWER, role_required


@require_GET
@role_required(VIEWER)
def overview(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "memory_app/overview.html",
        {"memory": memory_overview(), "graph": graph_overview()},
    )
