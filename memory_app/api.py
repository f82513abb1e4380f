"""JSON front door of the notes: a ninja router added to ``qqweb.api``."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Router

from memory_app.schemas import MemoryOverviewOut
from memory_app.selectors import memory_overview
from qqweb.auth import VIEWER, require_role

router = Router(tags=["notes"])


def _counts(rows: list[tuple[str, int]]) -> list[dict[str, Any]]:
    return [{"name": name, "count": count} for name, count in rows]


@router.get("/overview", response=MemoryOverviewOut)
def overview(request: HttpRequest) -> dict[str, Any]:
    """Notes by section, archive lines, core and working notes. A store that is down is
    named in ``errors``; the other counts are still given."""
    require_role(request, VIEWER)
    data = memory_overview()
    return {
        "notes_total": data.notes_total,
        "notes_by_section": _counts(data.notes_by_section),
        "archive": data.archive,
        "core_by_category": _counts(data.core_by_category),
        "working_by_section": _counts(data.working_by_section),
        "errors": data.errors,
    }
