"""Project-level pages: health, API tokens, and sections that are not built yet."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_not_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views import defaults
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from qqweb.context_processors import store_context
from qqweb.forms import ApiTokenCreateForm
from qqweb.health import cached_stores_health, checked_stores_health, stores_health
from qqweb.lib.auth import ADMIN, VIEWER, role_required
from qqweb.liveness import liveness, worker_dot
from qqweb.models import ApiToken
from qqweb.selectors import api_tokens_for
from qqweb.services import api_token_create, api_token_revoke


@login_not_required
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """Each store's up/down status and latency; no data. 503 when any store is down.

    ``jobs`` says whether a worker and beat are alive, with counts only (no host names).
    It does not change the status: the web process serves pages without a worker, and a
    load balancer or container health check should not restart it for that."""
    statuses = stores_health()
    alive = liveness()
    body = {
        "status": "ok" if all(s.up for s in statuses) else "degraded",
        "stores": {s.name: {"up": s.up, "latency_ms": s.latency_ms} for s in statuses},
        "jobs": {
            "worker_alive": alive.worker_alive,
            "workers_alive": sum(w.state == "alive" for w in alive.workers),
            "beat_alive": alive.beat_alive,
        },
    }
    return JsonResponse(body, status=200 if body["status"] == "ok" else 503)


@require_GET
@role_required(VIEWER)
def health(request: HttpRequest) -> HttpResponse:
    statuses = checked_stores_health()
    context = {"statuses": statuses, "liveness": liveness(), **store_context(statuses)}
    return render(request, "qqweb/health.html", context)


@require_GET
@role_required(VIEWER)
def store_status(request: HttpRequest) -> HttpResponse:
    """The layout's store dots (``#store-status``) and, out of band, its banner
    (``#store-banner``): asked at once by a page rendered before the process had an
    answer, then polled by htmx every 30 s."""
    statuses = cached_stores_health(wait=True)
    context = {**store_context(statuses), "worker_dot": worker_dot(), "oob": True}
    return render(request, "qqweb/_store_status.html", context)


@require_http_methods(["GET", "POST"])
@role_required(ADMIN)
def api_tokens(request: HttpRequest) -> HttpResponse:
    form = ApiTokenCreateForm(
        request.POST or None, initial={"user": request.user.pk}, creator=request.user
    )
    new_key = None
    if request.method == "POST" and form.is_valid():
        token, new_key = api_token_create(
            user=form.cleaned_data["user"],
            name=form.cleaned_data["name"],
            created_by=request.user,
        )
        messages.success(
            request, f"Token “{token.name}” created. Copy it now: it is not shown again."
        )
        form = ApiTokenCreateForm(initial={"user": request.user.pk}, creator=request.user)
    tokens = api_tokens_for(actor=request.user)
    return render(
        request, "qqweb/api_tokens.html", {"form": form, "tokens": tokens, "new_key": new_key}
    )


@require_POST
@role_required(ADMIN)
def api_token_revoke_view(request: HttpRequest, token_id: int) -> HttpResponse:
    try:
        token = api_token_revoke(token_id=token_id, actor=request.user)
    except ApiToken.DoesNotExist as e:
        raise Http404(f"there is no token {token_id}") from e
    messages.success(request, f"Token “{token.name}” revoked.")
    return redirect("api_tokens")


@require_GET
@role_required(VIEWER)
def section_pending(request: HttpRequest, title: str, summary: str) -> HttpResponse:
    """Sections of the navigation whose screens are not built yet say so plainly."""
    return render(request, "qqweb/section_pending.html", {"title": title, "summary": summary})


# Django's error pages, except under /api/: the API answers in JSON, always, also for a
# path that is no route, a body Django refused before the API saw it, or a crash.


def _api_error(status: int, code: str, message: str) -> JsonResponse:
    return JsonResponse({"error": {"code": code, "message": message}}, status=status)


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def error_400(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _is_api(request):
        return _api_error(400, "bad_request", str(exception) or "bad request")
    return defaults.bad_request(request, exception)


def error_404(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _is_api(request):
        return _api_error(404, "not_found", f"no API route at {request.path}")
    return defaults.page_not_found(request, exception)


def error_500(request: HttpRequest) -> HttpResponse:
    if _is_api(request):
        return _api_error(500, "internal", "internal error; the server logged it")
    return defaults.server_error(request)
