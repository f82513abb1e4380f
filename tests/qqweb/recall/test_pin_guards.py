"""Every write of the URLconf is sorted: the ones that can lose a pinned recall
(``qqweb.recall.guards.PIN_LOSING_WRITES``) and the ones that cannot, with why; the same
for every write of the NinjaAPI (``API_PIN_LOSING_WRITES``: 409 ``would_lose_pins``
unless ``confirm_lost_pins=true``). A new write in neither list fails here, so it cannot
ship without its pin preview or a reason it needs none. (The preview of each pin-losing
write: test_pin_previews.py; the API's 409s: tests/memory_app/*/test_api_pins.py.)"""

from __future__ import annotations

import re

from django.test import RequestFactory
from django.urls import URLPattern, URLResolver, get_resolver

from qqweb.api import api
from qqweb.recall.guards import (
    API_PIN_LOSING_WRITES,
    API_WRITES_KEEPING_PINS,
    PIN_LOSING_WRITES,
    WRITES_KEEPING_PINS,
)

SKIPPED = ("admin/", "api/", "accounts/")  # Django's own pages; the API is not a page


def _patterns(
    resolver: URLResolver, prefix: str = "", namespace: str = ""
) -> list[tuple[str, str, URLPattern]]:
    found = []
    for entry in resolver.url_patterns:
        route = prefix + str(entry.pattern)
        if route.startswith(SKIPPED):
            continue
        if isinstance(entry, URLResolver):
            inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            found += _patterns(entry, route, inner)
        elif entry.name:
            found.append((f"{namespace}{entry.name}", route, entry))
    return found


def _methods(pattern: URLPattern) -> set[str]:
    """The methods the view accepts, from the Allow header of its 405 to a PUT (every view
    says which methods it takes, before it checks anything else)."""
    kwargs = {name: "x" for name in re.findall(r"<(?:\w+:)?(\w+)>", str(pattern.pattern))}
    answer = pattern.callback(RequestFactory().put("/"), **kwargs)
    assert answer.status_code == 405, f"{pattern.name} takes any method: decorate it"
    return {m.strip() for m in answer["Allow"].split(",")}


def test_every_write_of_the_pages_is_sorted_by_whether_it_can_lose_a_pinned_recall() -> None:
    writes = {name for name, _, p in _patterns(get_resolver()) if "POST" in _methods(p)}
    unsorted = writes - set(PIN_LOSING_WRITES) - set(WRITES_KEEPING_PINS)
    assert not unsorted, (
        f"say whether these writes can lose a pin (qqweb/recall/guards.py): {unsorted}"
    )
    assert not set(PIN_LOSING_WRITES) & set(WRITES_KEEPING_PINS)
    gone = (set(PIN_LOSING_WRITES) | set(WRITES_KEEPING_PINS)) - writes
    assert not gone, f"no such write in the URLconf: {gone}"


def _api_writes() -> set[str]:
    """Every route of the one NinjaAPI that is not a GET, as "METHOD /api/path"."""
    found = set()
    for prefix, router in api._routers:
        for path, view in router.path_operations.items():
            for operation in view.operations:
                for method in operation.methods:
                    if method != "GET":
                        found.add(f"{method} /api{prefix.rstrip('/')}{path}")
    return found


def test_every_write_of_the_api_is_sorted_by_whether_it_can_lose_a_pinned_recall() -> None:
    writes = _api_writes()
    lists = (API_PIN_LOSING_WRITES, API_WRITES_KEEPING_PINS)
    unsorted = writes - set().union(*lists)
    assert not unsorted, (
        f"say whether these API writes can lose a pin (qqweb/recall/guards.py): {unsorted}"
    )
    assert not set(API_PIN_LOSING_WRITES) & set(API_WRITES_KEEPING_PINS)
    gone = set().union(*lists) - writes
    assert not gone, f"no such write in the API: {gone}"


def test_every_pin_losing_write_of_the_api_takes_confirm_lost_pins() -> None:
    """The flag is the same on every guarded route: a query parameter, documented."""
    schema = api.get_openapi_schema()
    for route in API_PIN_LOSING_WRITES:
        method, path = route.split(" ", 1)
        operation = schema["paths"][path.replace("{path:name}", "{name}")][method.lower()]
        query = {p["name"] for p in operation.get("parameters", []) if p["in"] == "query"}
        assert "confirm_lost_pins" in query, f"{route} takes no confirm_lost_pins"
        assert 409 in operation["responses"], f"{route} does not document its 409"
