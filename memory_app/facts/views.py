"""HTML front door of the facts store: thin, read-only views (this step). The pages are
off (404) while ``QQ_FACTS_MONGO_URI`` is not set."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any
from urllib.parse import urlencode

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from memory_app.facts import selectors
from memory_app.facts.lib import FactNotFound, FactsConfigError
from memory_app.facts.lib.errors import InvalidFact
from memory_app.facts.lib.lint import agent_broken
from memory_app.facts.plan_effects import next_start_effect
from memory_app.facts.stores import facts_enabled
from qqweb.lib.auth import VIEWER, role_required
from qqweb.lib.errors import StoreUnavailable
from qqweb.lib.pages import render_page


def facts_on(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """404 while the facts store is off; a banner page while it is down."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not facts_enabled():
            raise Http404("the facts store is off: QQ_FACTS_MONGO_URI is not set")
        try:
            return view(request, *args, **kwargs)
        except StoreUnavailable as e:
            return render(request, "facts_app/unavailable.html", {"error": e}, status=503)
        except FactsConfigError as e:  # also reported by `manage.py check` (facts.E001)
            return render(request, "facts_app/unavailable.html", {"error": e}, status=500)

    return wrapper


@require_GET
@role_required(VIEWER)
@facts_on
def facts_list(request: HttpRequest) -> HttpResponse:
    embedding, kind = request.GET.get("embedding", ""), request.GET.get("kind", "")
    filters: dict[str, Any] = {
        "kind": kind if kind in selectors.KIND_FILTERS else "",
        "q": request.GET.get("q", "").strip(),
        "embedding": embedding if embedding in selectors.EMBEDDING_FILTERS else "",
        "legacy": request.GET.get("legacy", "") == "1",
        "next_start": request.GET.get("next_start", "") == "1",
    }

    def listed(cursor: str | None) -> Any:
        return selectors.facts_list(
            text=filters["q"],
            embedding=filters["embedding"],
            legacy=filters["legacy"],
            next_start=filters["next_start"],
            kind=filters["kind"],
            cursor=cursor,
        )

    error, status = "", 200
    try:
        listing = listed(request.GET.get("cursor") or None)
    except InvalidFact as e:  # a cursor this list did not give: the first page, and why
        listing, error, status = listed(None), str(e), 400
    kept = {k: v for k, v in request.GET.items() if k != "cursor"}
    next_query = urlencode({**kept, "cursor": listing.next_cursor}) if listing.next_cursor else ""
    context = {"listing": listing, "filters": filters, "next_query": next_query, "error": error}
    return render_page(request, "facts_app/facts.html", "facts-table", context, status)


@require_GET
@role_required(VIEWER)
@facts_on
def fact_detail(request: HttpRequest, fact_id: str) -> HttpResponse:
    try:
        detail = selectors.fact_detail(fact_id)
    except FactNotFound:
        return render(request, "facts_app/not_found.html", {"fact_id": fact_id}, status=404)
    return render(request, "facts_app/fact.html", {"detail": detail})


@require_GET
@role_required(VIEWER)
@facts_on
def next_start(request: HttpRequest) -> HttpResponse:
    """The plan, pair by pair; with ``anchor_id`` and ``deleted_id`` (htmx, a
    confirmation's Cancel) only that pair's row, as it is now."""
    anchor_id, deleted_id = request.GET.get("anchor_id", ""), request.GET.get("deleted_id", "")
    if getattr(request, "htmx", False) and anchor_id and deleted_id:
        row = selectors.next_start_row(anchor_id=anchor_id, deleted_id=deleted_id)
        context = {"row": row, "row_id": f"pair-{anchor_id}-{deleted_id}"}
        return render(request, "facts_app/next_start.html#pair", context)
    review = selectors.next_start_review()
    pins = next_start_effect(review.plan)  # the pinned facts it would delete, and lose
    page = {"plan": review.plan, "review": review, "pins": pins, "rows": _returns(review)}
    return render(request, "facts_app/next_start.html", page)


def _returns(review: selectors.NextStartReview) -> list[tuple[selectors.PairRow, str]]:
    """Each row with where a write from it comes back to without JavaScript (its form's
    ``next``): the row after it, which takes its place once it is resolved, else the one
    before, else the table."""
    ids = [row.id for row in review.rows]
    back = [*ids[1:], ids[-2] if len(ids) > 1 else "next-start-pairs"] if ids else []
    return list(zip(review.rows, back, strict=True))


@require_GET
@role_required(VIEWER)
@facts_on
def lint(request: HttpRequest) -> HttpResponse:
    findings = selectors.facts_lint()
    return render(
        request,
        "facts_app/lint.html",
        {"findings": findings, "broken": agent_broken(findings)},
    )
