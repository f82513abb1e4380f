"""Neo4j values as plain Python: temporal types become datetimes / ISO strings."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any


def plain(value: Any) -> Any:
    if hasattr(value, "to_native"):
        return value.to_native()
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def shown(value: Any) -> str:
    """A property as a page shows it: a date and time as ``2026-03-01 12:00 UTC`` (never
    the driver's ``2026-03-01T12:00:00.000000000+00:00``), a date as ``2026-03-01``, a list
    as its items joined with commas."""
    value = plain(value)
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            value = value.astimezone(UTC)
        return value.strftime("%Y-%m-%d %H:%M") + (" UTC" if value.tzinfo else "")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, list):
        return ", ".join(shown(v) for v in value)
    return str(value)
