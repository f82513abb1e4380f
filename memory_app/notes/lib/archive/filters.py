"""The Archive page's filters: the lines one of its counts counts (a reason, a section, a
month archived, the restored ones), as a predicate on a line and on the statistics' keys,
so a filtered page says how many lines match without reading the file
(:class:`~memory_app.notes.lib.archive.stats.ArchiveSummary` keeps a count per key).

Each value is the one the counts are grouped by: the reason's group
(:func:`~memory_app.notes.lib.archive.entries.reason_kind`, ``importance_decay`` for every
``importance_decay_0.013``), the section as written ("(no section)" for none), the month
as ``YYYY-MM`` of ``archived_at``. A bad value is an :class:`InvalidQuery` naming the field.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memory_app.notes.lib.archive.entries import ArchivedNote, reason_kind
from memory_app.notes.lib.errors import InvalidQuery

NO_SECTION = "(no section)"
MAX_VALUE = 300
_MONTH = re.compile(r"\d{4}-(0[1-9]|1[0-2])")

# (reason group, section, month, restored): what the statistics count lines by
LineKey = tuple[str, str, str, bool]


def line_key(note: ArchivedNote) -> LineKey:
    return (
        reason_kind(note.reason),
        note.section or NO_SECTION,
        note.archived_at[:7] if note.archived_at else "",
        note.restored,
    )


@dataclass(frozen=True)
class ArchiveFilter:
    """``include_restored``: restored lines are listed too (by default they are not);
    ``restored_only``: only they are."""

    reason: str | None = None
    section: str | None = None
    month: str | None = None
    include_restored: bool = False
    restored_only: bool = False

    def __post_init__(self) -> None:
        for name in ("reason", "section", "month"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or len(value) > MAX_VALUE):
                raise InvalidQuery(name, f"must be text of at most {MAX_VALUE} characters")
        if self.month is not None and not _MONTH.fullmatch(self.month):
            raise InvalidQuery("month", "must be a month as YYYY-MM, like 2026-03")

    @property
    def narrows(self) -> bool:
        """True when it picks lines by more than whether they were restored."""
        return any(v is not None for v in (self.reason, self.section, self.month)) or (
            self.restored_only
        )

    def key_matches(self, key: LineKey) -> bool:
        reason, section, month, restored = key
        return (
            (self.reason is None or reason == self.reason)
            and (self.section is None or section == self.section)
            and (self.month is None or month == self.month)
            and (restored or not self.restored_only)
            and (not restored or self.include_restored or self.restored_only)
        )

    def matches(self, note: ArchivedNote) -> bool:
        return self.key_matches(line_key(note))
