"""Page-side handling of a store that cannot answer now: a 503 that says which and why.

Views that can show something without a store catch its outage themselves (the graph
counts on Overview, the entity list's banner); any other page whose store is down ends
here. Nothing is cached: the next request tries the store again, so the page comes back
by itself with the store. The JSON API maps the same errors to its own 503
(``qqweb/api.py``). An htmx request gets the message alone, shown where errors are
shown (``static/qqweb/errors.js``); a plain request gets a page with the layout, so the
rest of the dashboard is a click away."""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from graph_app.knowledge import GraphUnavailable
from memory_app.memory import ModelLoading, StoreUnavailable

logger = logging.getLogger(__name__)

STORE_NAMES = {
    "mongodb": "MongoDB",
    "neo4j": "The knowledge graph (Neo4j)",
    "embedder": "The embedding service",
    "llm": "The LLM endpoint",
}


class _ExceptionMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)


class ModelLoadingMiddleware(_ExceptionMiddleware):
    """A page or htmx request that needs the embedding model while it is still loading in
    the background (see ``qqweb.clients.embedder_warm_up``) is answered 503 with
    Retry-After and the reason: the whole page for a plain request (it reloads itself)."""

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, ModelLoading):
            return None
        if getattr(request, "htmx", False):
            response = HttpResponse(str(exception), status=503, content_type="text/plain")
        else:
            context = {"message": str(exception), "retry_after": exception.retry_after}
            response = render(request, "model_loading.html", context, status=503)
        response["Retry-After"] = str(exception.retry_after)
        return response


class StoreDownMiddleware(_ExceptionMiddleware):
    """:class:`StoreUnavailable` (MongoDB, the memory directory, the embedding service) or
    :class:`GraphUnavailable` (Neo4j) becomes a 503 naming the store and the reason."""

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, ModelLoading):
            return None  # ModelLoadingMiddleware's, with its Retry-After
        if not isinstance(exception, StoreUnavailable | GraphUnavailable):
            return None
        if request.path.startswith("/api/"):
            return None
        store = getattr(exception, "store", "")
        logger.warning("%s is down on %s: %s", store, request.path, exception)
        reason = getattr(exception, "message", str(exception))
        if getattr(request, "htmx", False):
            name = STORE_NAMES.get(store, store)
            return HttpResponse(f"{name} is down: {reason}", status=503, content_type="text/plain")
        context = {"store": store, "store_name": STORE_NAMES.get(store, store), "reason": reason}
        return render(request, "qqweb/store_down.html", context, status=503)
