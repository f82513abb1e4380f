"""A store that is down makes a page a banner, never a 500.

Views that can show something without a store catch its outage themselves (the graph
counts on Overview, the entity list's banner); any other page whose store is down ends
here: :class:`StoreUnavailable` (MongoDB, the memory directory, the embedding service) or
:class:`GraphUnavailable` (Neo4j) becomes a 503 page naming the store and the reason,
with the layout (so the rest of the dashboard is a click away). Nothing is cached: the
next request tries the store again, so the page comes back by itself with the store.
The JSON API maps the same errors to its own 503 (``qqweb/api.py``)."""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from graph_app.knowledge import GraphUnavailable
from memory_app.memory import StoreUnavailable

logger = logging.getLogger(__name__)

STORE_NAMES = {
    "mongodb": "MongoDB",
    "neo4j": "The knowledge graph (Neo4j)",
    "embedder": "The embedding service",
    "llm": "The LLM endpoint",
}


class StoreDownMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, StoreUnavailable | GraphUnavailable):
            return None
        if request.path.startswith("/api/"):
            return None
        store = getattr(exception, "store", "")
        logger.warning("%s is down on %s: %s", store, request.path, exception)
        context = {
            "store": store,
            "store_name": STORE_NAMES.get(store, store),
            "reason": getattr(exception, "message", str(exception)),
        }
        return render(request, "qqweb/store_down.html", context, status=503)
