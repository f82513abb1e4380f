"""``archive.jsonl``, the agent's archive of notes that left MongoDB.

- :mod:`.entries`: the line format (``ArchivedNote``, building and checking a line,
  naive local ISO stamps, reason kinds);
- :mod:`.file`: the locked JSONL file (read and parse, append, rewrite; lines we cannot
  parse are kept);
- :mod:`.restore`: what a restore puts back into MongoDB, and why one is refused;
- :mod:`.manager`: ``ArchiveManager``, the agent's seed API (archive, restore, search,
  purge, stats);
- :mod:`.mongo`: the two places it touches MongoDB's collection directly.
"""

from memory_app.notes.lib.archive.entries import (
    ArchivedNote,
    ArchiveLine,
    archive_line_for,
    local_naive_iso,
    new_note_id,
    parse_local,
    reason_kind,
    validate_archive_entry,
)
from memory_app.notes.lib.archive.file import ArchiveFile
from memory_app.notes.lib.archive.manager import (
    ARCHIVE_FILE,
    ARCHIVE_LOCK,
    ArchiveManager,
    ArchiveReadResult,
    PurgePlan,
)
from memory_app.notes.lib.archive.restore import ArchiveLineGone, RestoreConflict
from memory_app.notes.lib.archive.stats import ArchiveSummary

__all__ = [
    "ARCHIVE_FILE",
    "ARCHIVE_LOCK",
    "ArchiveFile",
    "ArchiveLine",
    "ArchiveLineGone",
    "ArchiveManager",
    "ArchiveReadResult",
    "ArchiveSummary",
    "ArchivedNote",
    "PurgePlan",
    "RestoreConflict",
    "archive_line_for",
    "local_naive_iso",
    "new_note_id",
    "parse_local",
    "reason_kind",
    "validate_archive_entry",
]
