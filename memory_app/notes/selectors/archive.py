"""Reads of archive.jsonl: browse with stats, restore preview."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.conf import settings

from memory_app.notes.job_params import MAX_DAYS
from memory_app.notes.lib import NoteNotFound
from memory_app.notes.lib.archive import ArchivedNote, ArchiveLine, new_note_id
from memory_app.notes.lib.archive.entries import parse_local
from memory_app.notes.lib.archive.filters import ArchiveFilter
from memory_app.notes.lib.archive.restore import restorable
from memory_app.notes.lib.documents import effective_importance, utcnow_naive
from memory_app.notes.lib.grace import keep_until
from memory_app.notes.selectors.notes import SourceSummary, source_summary
from memory_app.notes.selectors.plan_effects import purge_effect
from memory_app.notes.stores import archive_manager, notes_store
from qqweb.lib.errors import InvalidInput
from qqweb.recall.effects import PlanEffect

# A page of the archive reads about this many bytes of the file back from where it starts
# and parses lines only until the page is full: a page of the newest lines reads 512 KB
# (about 1,500 lines of 340 bytes; 100 are shown), a search 2 MB (about 6,000 lines) and,
# when it found fewer than a page there, says how far back it looked and offers the rest.
PAGE_READ_BYTES = 512 * 1024
SEARCH_READ_BYTES = 2 * 1024 * 1024


@dataclass
class ArchiveView:
    entries: list[ArchivedNote]
    total: int
    by_reason: list[tuple[str, int]]
    by_section: list[tuple[str, int]]
    by_month: list[tuple[str, int]]
    bad_lines: list[ArchiveLine]
    restored: int
    unreadable: int = 0  # every unreadable line (``bad_lines`` lists the first of them)
    older: int | None = None  # where the next page starts (a byte offset); None: no more
    searched_back_to: str = ""  # archived_at of the oldest line this page read
    # how many lines the filter lists (from the statistics, no file read); None: a text
    # search, which only the lines read can answer
    matching: int | None = None


def archive_browse(
    *,
    query: str = "",
    flt: ArchiveFilter | None = None,
    limit: int = 100,
    before: int | None = None,
) -> ArchiveView:
    """archive.jsonl newest first (from byte ``before``, where the previous page ended),
    searched by content or id and filtered by ``flt`` (a reason, section or month, the
    restored lines: what the page's counts link to), with its statistics and the lines
    that could not be read. The statistics come from the per-file cache
    (:mod:`memory_app.notes.lib.archive.stats`), which also answers how many lines the
    filter lists (``matching``, unless there is a text search); the lines from reading back
    from the page's start, at most ``SEARCH_READ_BYTES`` a request, so neither depends on
    the archive's size. A search or filter that finds fewer than ``limit`` lines in that
    stretch says how far back it looked and offers ``older``."""
    flt = flt or ArchiveFilter()
    manager = archive_manager()
    summary = manager.summary()
    limit = max(1, min(limit, 1000))
    needle = query.strip().lower()
    shown: list[ArchivedNote] = []
    oldest = ""
    budget = SEARCH_READ_BYTES if needle or flt.narrows else PAGE_READ_BYTES
    lines, start = manager.newest_lines(before, budget)
    older: int | None = start if start > 0 else None
    for offset, note in lines:
        if not isinstance(note, ArchivedNote):
            continue
        oldest = note.archived_at or oldest
        if flt.matches(note) and (
            not needle or needle in note.content.lower() or needle == note.note_id.lower()
        ):
            shown.append(note)
            if len(shown) == limit:
                older = offset if offset > 0 else None
                break
    return ArchiveView(
        entries=shown,
        total=summary.total,
        by_reason=summary.by_reason.most_common(),
        by_section=summary.by_section.most_common(),
        by_month=sorted(summary.by_month.items()),
        bad_lines=summary.bad_lines,
        restored=summary.restored,
        unreadable=summary.unreadable,
        older=older,
        searched_back_to=oldest,
        matching=None if needle else summary.matching(flt),
    )


def grace_until(keep_days: int | None = None, now: datetime | None = None) -> datetime | None:
    """When a note brought back now (restored, or by an undo) stops being kept from the
    archival pass: ``keep_days`` from now (None: ``QQ_RESTORE_GRACE_DAYS``; 0: no grace,
    the next pass may archive it again). A bad number of days is InvalidInput."""
    days = settings.QQ_RESTORE_GRACE_DAYS if keep_days is None else keep_days
    try:
        return keep_until(now or utcnow_naive(), days)
    except ValueError as e:
        raise InvalidInput("keep_days", str(e)) from e


@dataclass
class RestorePreview:
    archived: ArchivedNote
    conflict: bool
    suggested_id: str
    importance_after: float
    effective_after: float  # the effective importance it comes back with
    keep_days: int  # the default grace period (QQ_RESTORE_GRACE_DAYS)
    keep_until: datetime | None  # the end of that grace period, for a restore now
    archive_threshold: float

    @property
    def archived_again(self) -> bool:
        """True when, without a grace period, the next archival pass archives it again."""
        return self.effective_after < self.archive_threshold

    @property
    def source(self) -> SourceSummary | None:
        return source_summary(self.archived.source) if self.archived.source else None


def archive_restore_preview(*, note_id: str, boost: float = 0.1) -> RestorePreview:
    archived = archive_manager().find_line(note_id)
    if archived is None:
        raise NoteNotFound(note_id)
    restorable(archived)  # a line no note may hold: 400 with the reason
    conflict = notes_store().get_note(note_id) is not None
    now = utcnow_naive()
    importance = round(min(1.0, archived.importance + boost), 6)
    comes_back = {
        "importance": importance,
        "access_count": archived.access_count,
        "created_at": parse_local(archived.original_created_at) or now,
        "last_accessed": None,
        "decay_rate": 0.01,  # what a restore writes (restored_document)
    }
    return RestorePreview(
        archived,
        conflict,
        new_note_id(),
        importance,
        effective_importance(comes_back, now),
        settings.QQ_RESTORE_GRACE_DAYS,
        grace_until(now=now),
        settings.QQ_ARCHIVE_THRESHOLD,
    )


@dataclass(frozen=True)
class PurgePreview:
    """What purging the lines older than ``days`` would drop: how many, the first of
    them (``shown``: id, text, when and why archived) and its effect on the pins."""

    days: int
    count: int
    shown: list[ArchivedNote]
    pins: PlanEffect

    @property
    def more(self) -> int:
        return self.count - len(self.shown)


PURGE_SHOWN = 10


def archive_purge_preview(*, days: int) -> PurgePreview:
    """The purge's plan, read the way the purge reads it (no write)."""
    if not 0 <= days <= MAX_DAYS:
        raise InvalidInput("days", f"must be a whole number of days, 0 to {MAX_DAYS}")
    lines = archive_manager().plan_purge(days).lines
    return PurgePreview(
        days,
        len(lines),
        lines[:PURGE_SHOWN],
        purge_effect([n.note_id for n in lines], subject="This purge"),
    )
