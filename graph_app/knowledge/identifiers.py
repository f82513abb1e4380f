"""Labels and relationship types cannot be Cypher parameters, so they are checked here
against a strict pattern before any query is formatted with them."""

from __future__ import annotations

import re

from graph_app.knowledge.errors import InvalidIdentifier

# fullmatch, not match with ``$``: ``$`` also matches before a trailing newline, so
# ``"Person\n"`` would pass and end a line of Cypher.
_IDENTIFIER_RE = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}")


def checked_label(value: str) -> str:
    if not isinstance(value, str) or not _IDENTIFIER_RE.fullmatch(value):
        raise InvalidIdentifier("label", str(value))
    return value


def checked_rel_type(value: str) -> str:
    if not isinstance(value, str) or not _IDENTIFIER_RE.fullmatch(value):
        raise InvalidIdentifier("relationship type", str(value))
    return value
