"""Reads of archive.jsonl: browse with stats, restore preview."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from memory_app.memory import NoteNotFound
from memory_app.memory.archive import ArchivedNote, ArchiveLine, new_note_id, reason_kind
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


@dataclass
class RestorePreview:
    archived: ArchivedNote
    conflict: bool
    suggested_id: str
    importance_after: float

    @property
    def source(self) -> dict[str, str] | None:
        return source_summary(self.archived.source) if self.archived.source else None


def archive_restore_preview(*, note_id: str, boost: float = 0.1) -> RestorePreview:
    archived = archive_manager().find_line(note_id)
    if archived is None:
        raise NoteNotFound(note_id)
    conflict = notes_store().get_note(note_id) is not None
    return RestorePreview(
        archived, conflict, new_note_id(), round(min(1.0, archived.importance + boost), 6)
    )
