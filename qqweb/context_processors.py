"""What the layout needs on every page: the navigation and the stores' status."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.urls import reverse

from qqweb.auth import ADMIN, has_role, user_role
from qqweb.health import cached_stores_health

NAV = (
    ("overview", "Overview", "memory_app:overview"),
    ("notes", "Notes", "memory_app:notes"),
    ("review", "Review", "memory_app:review"),
    ("archive", "Archive", "memory_app:archive"),
    ("core", "Core", "memory_app:core"),
    ("graph", "Graph", "graph_app:index"),
    ("maintenance", "Maintenance", "memory_app:maintenance"),
    ("health", "Health", "health"),
)


def navigation(request: HttpRequest) -> dict[str, Any]:
    if not request.user.is_authenticated:
        return {}
    match = getattr(request, "resolver_match", None)
    current = (match.url_name if match else "") or ""
    items = [
        {
            "key": key,
            "label": label,
            "url": reverse(name),
            "active": reverse(name) == request.path or current == key,
        }
        for key, label, name in NAV
    ]
    statuses = cached_stores_health()
    return {
        "nav_items": items,
        "user_role": user_role(request.user),
        "is_admin": has_role(request.user, ADMIN),
        "store_statuses": statuses,
        "stores_down": [s for s in statuses if not s.up],
    }
