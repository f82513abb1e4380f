"""The notes router and the small conversions its routes share."""

from __future__ import annotations

from datetime import UTC, datetime

from ninja import Router

from memory_app.notes.schemas import CountOut

router = Router(tags=["notes"])


def _counts(rows: list[tuple[str, int]]) -> list[CountOut]:
    return [CountOut(name=name, count=count) for name, count in rows]


def _utc_naive(value: datetime) -> datetime:
    return value.astimezone(UTC).replace(tzinfo=None) if value.tzinfo else value
