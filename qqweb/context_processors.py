"""What the layout needs on every page: the navigation and the stores' status."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.urls import reverse

from memory_app.facts.stores import facts_enabled
from qqweb.dev_startup import graph_starting
from qqweb.health import StoreStatus, cached_stores_health
from qqweb.lib.auth import ADMIN, CURATOR, has_role, user_role
from qqweb.liveness import worker_dot

NAV = (
    ("overview", "Overview", "memory_app:overview"),
    ("notes", "Notes", "memory_app:notes"),
    ("search", "Search", "memory_app:search"),
    ("retrieval", "Retrieval", "memory_app:retrieval"),
    ("memory-tests", "Memory tests", "recall:memory_tests"),
    ("review", "Review", "memory_app:review"),
    ("archive", "Archive", "memory_app:archive"),
    ("core", "Core", "memory_app:core"),
    ("graph", "Graph", "graph_app:index"),
    ("jobs", "Jobs", "memory_app:maintenance"),
    ("audit", "Audit", "memory_app:audit"),
    ("health", "Health", "health"),
)


def navigation(request: HttpRequest) -> dict[str, Any]:
    if not request.user.is_authenticated:
        return {}
    items = [
        {
            "key": key,
            "label": label,
            "url": reverse(name),
            "active": reverse(name) == request.path
            or (key != "overview" and request.path.startswith(reverse(name))),
        }
        for key, label, name in NAV
    ]
    if facts_enabled():  # the second agent's facts: shown only when configured
        url = reverse("facts_app:facts")
        at = next(i for i, item in enumerate(items) if item["key"] == "graph")
        items.insert(
            at,
            {"key": "facts", "label": "Facts", "url": url, "active": request.path.startswith(url)},
        )
    return {
        "nav_items": items,
        "user_role": user_role(request.user),
        "is_admin": has_role(request.user, ADMIN),
        "can_curate": has_role(request.user, CURATOR),
        # None: not checked yet; the dots then ask at once (qqweb/_store_status.html)
        **store_context(cached_stores_health()),
        "worker_dot": worker_dot(),
        "graph_starting": graph_starting(),
    }


def store_context(statuses: list[StoreStatus] | None) -> dict[str, Any]:
    """The layout's store dots and banner for these statuses (None: not checked yet)."""
    return {
        "store_statuses": statuses,
        "stores_checking": statuses is None,
        "stores_down": [s for s in statuses or () if not s.up],
    }
