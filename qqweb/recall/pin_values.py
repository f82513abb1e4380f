"""The one check of a pin's values, for every door that takes a pin: the Pin a recall form
and Pin this buttons, ``POST /api/memory-tests/pins``, the JSONL import and a backup's
``pin`` records (:mod:`qqweb.recall.backup`).

A value is refused, in words naming why, when it is not a text, is empty where the pin
needs it, is longer than its field holds, or holds a character a database or a page
cannot keep: a NUL (PostgreSQL refuses it in text; SQLite would keep it and a later move
to PostgreSQL would fail) or a lone UTF-16 surrogate (``"\\ud800"`` in JSON: not text,
no database can encode it). Pure: no database, no store."""

from __future__ import annotations

from typing import Any

from qqweb.recall.models import MAX_COMMENT, MAX_ITEM_ID, MAX_QUERY

MAX_SOURCE = 20
MAX_ITEM_TEXT = 100_000
MAX_CREATED_BY = 200
# Each field a pin holds, with its limit in characters.
LIMITS = {
    "source": MAX_SOURCE,
    "query": MAX_QUERY,
    "item_id": MAX_ITEM_ID,
    "comment": MAX_COMMENT,
    "item_text": MAX_ITEM_TEXT,
    "created_by": MAX_CREATED_BY,
}
REQUIRED = frozenset({"source", "query", "item_id"})


def value_kind(value: Any) -> str:
    """What a JSON value is, in words ("a number", "an object")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__


def unstorable_character(value: str) -> str:
    """The character of ``value`` no database or page can keep, in words ('' for none)."""
    if "\x00" in value:
        return "a NUL character (U+0000)"
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as e:
            return f"a lone UTF-16 surrogate (U+{ord(value[e.start]):04X}), which is not text"
    return ""


def pin_value_problem(name: str, value: Any) -> str:
    """Why a pin may not hold ``value`` as its ``name`` ('' when it may). The value is
    judged as the pin keeps it: stripped of surrounding white space."""
    if not isinstance(value, str):
        return f"must be a text, not {value_kind(value)}"
    bad = unstorable_character(value)
    if bad:
        return f"holds {bad}"
    value = value.strip()
    if name in REQUIRED and not value:
        return "must not be empty"
    limit = LIMITS[name]
    if len(value) > limit:
        return f"must be at most {limit} characters (it has {len(value)})"
    return ""
