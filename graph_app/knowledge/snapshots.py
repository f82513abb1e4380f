"""Lossless JSON for Neo4j property values, for audit snapshots and undo.

``plain`` (``values.py``) turns temporal values into Python datetimes for display, which
drops nanoseconds and the difference between ``DateTime`` and ``LocalDateTime``. Undo
must put back exactly what was there, so snapshots keep each temporal value tagged with
its Neo4j type and ISO text (``{"$neo4j": "DateTime", "iso": "...123456789+00:00"}``)
and decode it to the same driver type. Named time zones are kept as their offset.
"""

from __future__ import annotations

from typing import Any

from neo4j import time as neo4j_time

_TEMPORAL_TYPES: dict[str, Any] = {
    "DateTime": neo4j_time.DateTime,
    "Date": neo4j_time.Date,
    "Time": neo4j_time.Time,
    "Duration": neo4j_time.Duration,
}
_TAG = "$neo4j"


def encode(value: Any) -> Any:
    """A Neo4j value (as the driver returns it) as JSON-safe data."""
    for name, kind in _TEMPORAL_TYPES.items():
        if isinstance(value, kind):
            return {_TAG: name, "iso": value.iso_format()}
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [encode(v) for v in value]
    return value


def decode(value: Any) -> Any:
    """The inverse of :func:`encode`: driver values ready to be passed as parameters."""
    if isinstance(value, dict):
        if set(value) == {_TAG, "iso"}:
            return _TEMPORAL_TYPES[value[_TAG]].from_iso_format(value["iso"])
        return {k: decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value
