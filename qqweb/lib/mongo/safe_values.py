"""Is a whole document safe to write as data? A pure check shared by every store that
takes documents from outside (an import): no key MongoDB would read as an operator or a
path, no number that is not finite, no nesting deeper than anything the agents write.

A key starting with ``$`` (``{"$where": ...}``, ``{"note_id": {"$ne": null}}``) or holding
a ``.`` or a NUL is refused anywhere in the document, nested or in a list; so is an
``Infinity`` or ``NaN`` (the importance, decay and dedup maths would carry it into every
page), an integer BSON cannot hold, a string that is not text (a lone surrogate) or holds
a NUL (a control character no agent writes, which PostgreSQL takes in no text column),
and a date within a day of the ends of Python's range (years 1 and 9999:
shown in another time zone, it would overflow; :func:`datetime_problem`).
The answer is a reason in words naming the field ('' when there is none).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

MAX_DEPTH = 32  # the agents' deepest documents (a source inside a history) nest 4 levels
_INT64 = (-(2**63), 2**63 - 1)  # BSON's widest integer
# the dates every page and store can show in any time zone (offsets are within a day)
EARLIEST = datetime.min + timedelta(days=1)
LATEST = datetime.max - timedelta(days=1)


def datetime_problem(value: datetime, *, where: str = "the date") -> str:
    """Why a date may not be stored ('' when it may): as UTC (a naive one is UTC), it
    must be a day inside Python's range (years 1 to 9999), so that converting it to any
    time zone, for a page or a database, cannot overflow."""
    try:
        utc = value.astimezone(UTC).replace(tzinfo=None) if value.tzinfo else value
    except OverflowError:
        utc = datetime.min if value.year < 5000 else datetime.max
    if not EARLIEST <= utc <= LATEST:
        return (
            f"{where} {value.isoformat()} is out of the range of dates "
            f"({EARLIEST.date()} to {LATEST.date()} UTC)"
        )
    return ""


def _key_problem(key: Any, where: str) -> str:
    if not isinstance(key, str):
        return f"{where} has a key that is not a string ({key!r})"
    if key.startswith("$"):
        return f"{where} has the key {key!r}: a key starting with '$' is a MongoDB operator"
    if "." in key:
        return f"{where} has the key {key!r}: a key holding '.' is a MongoDB path"
    if "\x00" in key:
        return f"{where} has a key holding a NUL character"
    return ""


def _path(where: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{where}[{key}]"
    return f"{where}.{key}" if where else key


def stored_value_problem(value: Any, *, where: str = "the document") -> str:
    """Why ``value`` (a document decoded from extended JSON) may not be written as data:
    an operator or dotted key, a number that is not finite, a NUL in a string, a date
    out of range, or nesting deeper than ``MAX_DEPTH``; '' when it may."""
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    while stack:
        item, path, depth = stack.pop()
        if depth > MAX_DEPTH:
            return f"{path or where} nests deeper than {MAX_DEPTH} levels"
        if isinstance(item, float) and not math.isfinite(item):
            return f"{path or where} is {item!r}, not a finite number"
        if isinstance(item, int) and not _INT64[0] <= item <= _INT64[1]:
            return f"{path or where} is an integer beyond 64 bits"
        if isinstance(item, str):
            if "\x00" in item:
                return f"{path or where} holds a NUL character"
            if not item.isascii():
                try:
                    item.encode("utf-8")
                except UnicodeEncodeError:
                    return f"{path or where} holds a lone UTF-16 surrogate (not text)"
        if isinstance(item, datetime):
            problem = datetime_problem(item, where=path or where)
            if problem:
                return problem
        if isinstance(item, Mapping):
            for key, child in item.items():
                problem = _key_problem(key, path or where)
                if problem:
                    return problem
                stack.append((child, _path(path, key), depth + 1))
        elif isinstance(item, list | tuple):
            if set(map(type, item)) == {float}:  # a vector: checked at C speed
                if not all(map(math.isfinite, item)):
                    return f"{path or where} holds a number that is not finite"
                continue
            stack.extend((child, _path(path, i), depth + 1) for i, child in enumerate(item))
    return ""
