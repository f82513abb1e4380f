"""The page of a stale edit: the note as the store has it now, the curator's version,
and what "Save my version" would write, field by field (``memory.edits``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from memory_app.notes.lib.edits import (
    CONFLICT,
    FIELDS,
    MINE,
    SAME,
    THEIRS,
    FieldMerge,
    edit_merge,
)
from memory_app.notes.selectors.review import Segment, word_diff

LABELS = {"content": "text", "section": "section", "importance": "importance"}


@dataclass(frozen=True)
class FieldRow:
    """One field of a stale edit as the page lists it."""

    field: str
    label: str
    merge: FieldMerge


@dataclass(frozen=True)
class StaleEdit:
    current: Mapping[str, Any] | None  # None: archived or deleted meanwhile
    mine: Mapping[str, Any]
    base: Mapping[str, Any]  # what the form was loaded with (the store's now, if unknown)
    fields: tuple[FieldMerge, ...]
    diff_current: list[Segment]
    diff_mine: list[Segment]

    def _with(self, *statuses: str) -> list[FieldRow]:
        return [FieldRow(m.field, LABELS[m.field], m) for m in self.fields if m.status in statuses]

    @property
    def written(self) -> list[FieldRow]:
        """The fields only the curator changed: "Save my version" writes these."""
        return self._with(MINE)

    @property
    def kept(self) -> list[FieldRow]:
        """The fields changed in the store that the curator left alone: kept."""
        return [
            row
            for row in self._with(THEIRS, SAME)
            if row.merge.status == THEIRS and row.merge.current != row.merge.base
        ]

    @property
    def conflicts(self) -> list[FieldRow]:
        """The fields both changed, to different values: the curator picks."""
        return self._with(CONFLICT)


def stale_edit(
    *, current: Mapping[str, Any] | None, mine: Mapping[str, Any], base: Mapping[str, Any] | None
) -> StaleEdit:
    """A refused edit, merged per field. An edit from a form that did not say what it was
    loaded with counts every field it changed against the store's version as the
    curator's (the whole version is theirs to save)."""
    now = {f: (current or {}).get(f) for f in FIELDS}
    loaded = dict(base) if base is not None else now
    diff_current, diff_mine = word_diff(str(now["content"] or ""), str(mine.get("content", "")))
    return StaleEdit(current, mine, loaded, edit_merge(loaded, mine, now), diff_current, diff_mine)
