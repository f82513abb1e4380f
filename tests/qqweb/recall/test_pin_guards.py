"""Every write of the URLconf is sorted: the ones that can lose a pinned recall
(``qqweb.recall.guards.PIN_LOSING_WRITES``) and the ones that cannot, with why. A new
write in neither list fails here, so it cannot ship without its pin preview or a reason
it needs none. (The preview of each pin-losing write: test_pin_previews.py.)"""

from __future__ import annotations

import re

from django.test import RequestFactory
from django.urls import URLPattern, URLResolver, get_resolver

from qqweb.recall.guards import PIN_LOSING_WRITES, WRITES_KEEPING_PINS

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
