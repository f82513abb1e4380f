"""Page-side handling of the embedding model still loading: a 503 that says so, at once."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from memory_app.memory import ModelLoading


class ModelLoadingMiddleware:
    """A page or htmx request that needs the embedding model while it is still loading in
    the background (see ``qqweb.clients.embedder_warm_up``) is answered 503 with
    Retry-After and the reason: the whole page for a plain request (it reloads itself),
    the message alone for htmx (shown where errors are shown)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

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
