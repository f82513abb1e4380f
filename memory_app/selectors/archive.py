"""Reads of archive.jsonl: browse with stats, restore preview."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings

from memory_app.memory import InvalidNote, NoteNotFound
from memory_app.memory.archive import ArchivedNote, ArchiveLine, new_note_id, reason_kind
from memory_app.memory.archive.entries import parse_local
from memory_app.memory.documents import effective_importance, utcnow_naive
from memory_app.memory.grace import keep_until
from memory_app.selectors.notes import source_summary
from memory_app.stores import archive_manager, notes_store


@dataclass
class ArchiveView:
    entries: list[ArchivedNote]
    total: int
    by_reason: list[tuple[str, int]]
    by_section: list[tuple[str, int]]
    by_month: list[tuple[str, int]]
    bad_lines: list[ArchiveLine]
    restored: int


def archive_browse(
    *, query: str = "", include_restored: bool = False, limit: int = 100
) -> ArchiveView:
    """archive.jsonl newest first, searched by content or id, with its stats and the lines
    that could not be read."""
    read = archive_manager().read()
    notes = read.notes
    reasons: Counter[str] = Counter(reason_kind(n.reason) for n in notes)
    sections: Counter[str] = Counter(n.section or "(no section)" for n in notes)
    months: Counter[str] = Counter(n.archived_at[:7] for n in notes if n.archived_at)
    needle = query.strip().lower()
    shown = [
        n
        for n in reversed(notes)
        if (include_restored or not n.restored)
        and (not needle or needle in n.content.lower() or needle == n.note_id.lower())
    ]
    return ArchiveView(
        entries=shown[: max(1, min(limit, 1000))],
        total=len(notes),
        by_reason=reasons.most_common(),
        by_section=sections.most_common(),
        by_month=sorted(months.items()),
        bad_lines=read.bad_lines,
        restored=sum(1 for n in notes if n.restored),
    )


def grace_until(keep_days: int | None = None, now: datetime | None = None) -> datetime | None:
    """When a note brought back now (restored, or by an undo) stops being kept from the
    archival pass: ``keep_days`` from now (None: ``QQ_RESTORE_GRACE_DAYS``; 0: no grace,
    the next pass may archive it again). A bad number of days is InvalidNote."""
    days = settings.QQ_RESTORE_GRACE_DAYS if keep_days is None else keep_days
    try:
        return keep_until(now or utcnow_naive(), days)
    except ValueError as e:
        raise InvalidNote("keep_days", str(e)) from e


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
    def source(self) -> dict[str, str] | None:
        return source_summary(self.archived.source) if self.archived.source else None


def archive_restore_preview(*, note_id: str, boost: float = 0.1) -> RestorePreview:
    archived = archive_manager().find_line(note_id)
    if archived is None:
        raise NoteNotFound(note_id)
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
