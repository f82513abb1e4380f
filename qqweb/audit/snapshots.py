"""JSON snapshots of store documents for the audit log, and back, losslessly for the
types the agent stores (datetimes included, as ``{"$date": iso}``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any


def to_json(value: Any) -> Any:
    if isinstance(value, datetime):
        return {"$date": value.isoformat()}
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items() if k != "_id"}
    if isinstance(value, list | tuple):
        return [to_json(v) for v in value]
    return value


def from_json(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {"$date"}:
            return datetime.fromisoformat(value["$date"])
        return {k: from_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [from_json(v) for v in value]
    return value
