"""Model fields that hold on every database what they hold on SQLite."""

from __future__ import annotations

import re
from typing import Any

from django.db import models
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import expressions

# PostgreSQL's jsonb takes no NUL character (U+0000) in a string or a key ("unsupported
# Unicode escape sequence"), where SQLite stores any text. A note's content may hold one
# (the agent writes what it is given; a curator's edit may too), and the audit log keeps
# notes whole, to undo. On PostgreSQL each NUL is written as ESCAPE + "0", and ESCAPE
# itself (a private-use character) as ESCAPE + ESCAPE, and read back the same: every
# other string is stored as it is, so lookups on values without either still match.
ESCAPE = "\ue000"
_ESCAPED = re.compile(f"{ESCAPE}([{ESCAPE}0])")


def _escape(value: Any) -> Any:
    if isinstance(value, str):
        if "\x00" not in value and ESCAPE not in value:
            return value
        return value.replace(ESCAPE, ESCAPE + ESCAPE).replace("\x00", ESCAPE + "0")
    if isinstance(value, dict):
        return {_escape(k): _escape(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_escape(v) for v in value]
    return value


def _unescape(value: Any) -> Any:
    if isinstance(value, str):
        if ESCAPE not in value:
            return value
        return _ESCAPED.sub(lambda m: "\x00" if m[1] == "0" else ESCAPE, value)
    if isinstance(value, dict):
        return {_unescape(k): _unescape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unescape(v) for v in value]
    return value


class NulSafeJSONField(models.JSONField):
    """A JSONField whose strings may hold NUL on PostgreSQL too (see ``ESCAPE``); on
    SQLite it is Django's JSONField unchanged."""

    def get_db_prep_value(
        self, value: Any, connection: BaseDatabaseWrapper, prepared: bool = False
    ) -> Any:
        if isinstance(value, expressions.Value) and isinstance(
            value.output_field, models.JSONField
        ):
            value = value.value  # as bulk_update passes each row's value
        if connection.vendor == "postgresql" and not hasattr(value, "as_sql"):
            value = _escape(value)
        return super().get_db_prep_value(value, connection, prepared)

    def from_db_value(self, value: Any, expression: Any, connection: BaseDatabaseWrapper) -> Any:
        loaded = super().from_db_value(value, expression, connection)
        return _unescape(loaded) if connection.vendor == "postgresql" else loaded
