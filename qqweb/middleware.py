"""Page-side handling of our errors (:class:`QQErrorMiddleware`): a store that cannot
answer now is a 503 that says which and why, a refusal its 4xx with the message.

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

from django.conf import settings
from django.core.exceptions import MiddlewareNotUsed
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.http import url_has_allowed_host_and_scheme

from qqweb.lib.errors import Forbidden, ModelLoading, QQError, Refused, Unavailable

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


class QQErrorMiddleware(_ExceptionMiddleware):
    """Every ``QQError`` a page or htmx request meets, once (the API maps its own, in
    ``qqweb.api``):

    - the embedding model still loading (:class:`ModelLoading`): 503 with Retry-After and
      the reason, the whole page for a plain request (it reloads itself);
    - a store down (an ``Unavailable``: MongoDB, the memory directory, the embedding
      service, Neo4j): 503 naming the store and the reason;
    - a refusal (``Refused``: not found, invalid, a conflict): its status with the
      message, on the "Not done" page with a link back;
    - a 5xx one (a store refusing a query: a bug) and a ``Forbidden`` (Django's 403 page)
      are left to Django, which logs the traceback.

    An htmx request gets the message alone as text, shown where errors are shown
    (``static/qqweb/errors.js``)."""

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, QQError) or request.path.startswith("/api/"):
            return None
        if isinstance(exception, ModelLoading):
            return _model_loading(request, exception)
        if isinstance(exception, Unavailable):
            return _store_down(request, exception)
        if isinstance(exception, Refused) and not isinstance(exception, Forbidden):
            return _refused(request, exception)
        return None


def _model_loading(request: HttpRequest, exception: ModelLoading) -> HttpResponse:
    if getattr(request, "htmx", False):
        response = HttpResponse(str(exception), status=503, content_type="text/plain")
    else:
        context = {"message": str(exception), "retry_after": exception.retry_after}
        response = render(request, "model_loading.html", context, status=503)
    response["Retry-After"] = str(exception.retry_after)
    return response


def _store_down(request: HttpRequest, exception: Unavailable) -> HttpResponse:
    store = exception.store
    logger.warning("%s is down on %s: %s", store, request.path, exception)
    reason = exception.message
    name = STORE_NAMES.get(store, store)
    if getattr(request, "htmx", False):
        response = HttpResponse(f"{name} is down: {reason}", status=503, content_type="text/plain")
    else:
        context = {"store": store, "store_name": name, "reason": reason}
        response = render(request, "qqweb/store_down.html", context, status=503)
    if exception.retry_after is not None:
        response["Retry-After"] = str(exception.retry_after)
    return response


def _refused(request: HttpRequest, exception: Refused) -> HttpResponse:
    status = type(exception).status
    if getattr(request, "htmx", False):
        return HttpResponse(str(exception), status=status, content_type="text/plain")
    back = request.headers.get("referer") or "/"
    if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}):
        back = "/"
    context = {"error": str(exception), "back": back}
    return render(request, "qqweb/refused.html", context, status=status)


class UploadLimitMiddleware(_ExceptionMiddleware):
    """A multipart body (an upload) larger than ``QQ_UPLOAD_MAX_MB`` is answered 413 with
    the limit, before a byte of it is read (its ``Content-Length`` says how large it is;
    Django reads no more than that). The API answers its JSON error, a page plain text."""

    def __call__(self, request: HttpRequest) -> HttpResponse:
        content_type = request.META.get("CONTENT_TYPE", "")
        if content_type.lower().startswith("multipart/"):
            try:
                size = int(request.META.get("CONTENT_LENGTH") or 0)
            except ValueError:
                size = 0
            limit_mb = settings.QQ_UPLOAD_MAX_MB
            if size > limit_mb * 1024 * 1024:
                message = (
                    f"the upload is {size / 1024 / 1024:.1f} MB; this server takes uploads of "
                    f"at most {limit_mb} MB (QQ_UPLOAD_MAX_MB). Copy a larger export into "
                    "the backup directory, or import it with manage.py import_memory"
                )
                if request.path.startswith("/api/"):
                    error = {"code": "too_large", "message": message}
                    return JsonResponse({"error": error}, status=413)
                return HttpResponse(message, status=413, content_type="text/plain")
        return self.get_response(request)


class PlainNotFoundMiddleware(_ExceptionMiddleware):
    """With DEBUG (``make dev``), Django answers an unknown URL with its technical 404,
    which lists every URL pattern of the site: the normal 404 page is served instead, as
    in production (the API's JSON 404 included). Off without DEBUG, where Django serves
    the normal page itself."""

    MARK = b"<code>DEBUG = True</code>"  # only Django's technical pages say it

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        if not settings.DEBUG:
            raise MiddlewareNotUsed
        super().__init__(get_response)

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        technical = (
            response.status_code == 404
            and not getattr(response, "streaming", False)
            and self.MARK in response.content
        )
        if not technical:
            return response
        from qqweb.views import error_404

        return error_404(request, Http404(request.path))
