"""Neo4j values as plain Python: temporal types become datetimes / ISO strings."""

from __future__ import annotations

from typing import Any


def plain(value: Any) -> Any:
    if hasattr(value, "to_native"):
        return value.to_native()
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value
