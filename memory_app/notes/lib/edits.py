"""A stale edit merged per field: what the curator changed in the form, what changed in
the store since the form was loaded, and where both changed the same field.

Pure functions over three versions of a note's editable fields: ``base`` (what the form
was loaded with), ``mine`` (what the curator submitted) and ``current`` (the store now).
A field the curator did not change keeps the store's value, whoever changed it since; a
field only the curator changed takes theirs; a field both changed, to different values,
is a conflict the curator picks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

FIELDS = ("content", "section", "importance")

MINE, THEIRS, SAME, CONFLICT = "mine", "theirs", "same", "conflict"


def same_value(field: str, a: Any, b: Any) -> bool:
    """Equal as the form compares them: texts without surrounding space and with the
    browser's CRLF line ends read as LF; importances as numbers."""
    if a is None or b is None:
        return a is None and b is None
    if field == "importance":
        try:
            return abs(float(a) - float(b)) < 1e-9
        except (TypeError, ValueError):
            return False
    if field == "content":
        return _text(a) == _text(b)
    return str(a) == str(b)


def _text(value: Any) -> str:
    return str(value).replace("\r\n", "\n").strip()


@dataclass(frozen=True)
class FieldMerge:
    field: str
    base: Any
    mine: Any
    current: Any

    @property
    def status(self) -> str:
        """mine: only the curator changed it (written); theirs: the curator did not change
        it (the store's kept); same: both made the same change; conflict: both changed it."""
        mine_changed = not same_value(self.field, self.mine, self.base)
        theirs_changed = not same_value(self.field, self.current, self.base)
        if not mine_changed:
            return THEIRS
        if same_value(self.field, self.mine, self.current):
            return SAME
        return CONFLICT if theirs_changed else MINE

    @property
    def merged(self) -> Any:
        """The value a merge writes (a conflict: the curator's, until they pick)."""
        return self.current if self.status in (THEIRS, SAME) else self.mine


def edit_merge(
    base: Mapping[str, Any], mine: Mapping[str, Any], current: Mapping[str, Any]
) -> tuple[FieldMerge, ...]:
    """Each editable field's three versions and what merging them does."""
    return tuple(FieldMerge(f, base.get(f), mine.get(f), current.get(f)) for f in FIELDS)


def changed_fields(base: Mapping[str, Any], mine: Mapping[str, Any]) -> set[str]:
    """The fields whose submitted value differs from the one the form was loaded with."""
    return {f for f in FIELDS if f in mine and not same_value(f, mine[f], base.get(f))}
