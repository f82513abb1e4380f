from __future__ import annotations

from typing import Any

from ninja import Schema


class CountOut(Schema):
    name: str
    count: int


class MemoryOverviewOut(Schema):
    notes_total: int | None
    notes_by_section: list[CountOut]
    archive: dict[str, Any] | None
    core_by_category: list[CountOut]
    working_by_section: list[CountOut]
    errors: dict[str, str]
