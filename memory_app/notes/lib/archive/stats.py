"""The archive's statistics (the Overview's figures, the Archive page's pictures) and
where each note's lines are, kept per file instead of read from the whole file on every
request.

A file is known by its device, inode, size and modification time (``os.stat``, one system
call a request). While those are as they were, the figures are answered from memory;
when only lines were appended (same inode, and the bytes counted before as they were: a
BLAKE2 digest of them), only the new end is parsed and counted; any other change (a
rewrite through a temp file and ``os.replace``, one in place, a truncation) parses the
whole file again. A line the
agent left torn (no newline yet) is counted apart and read again with what follows it.
The figures per process; each process keeps its own. Beside them: the byte offset and
line number of every line (``line_number``) and each note id's lines (``offsets_of``), so
the Archive page reads only the lines it shows (``ArchiveFile.lines_before``) and a
restore preview only its note's lines (``ArchiveFile.line_at``); and the first
``BAD_LINES_KEPT`` lines that could not be read, with how many there are.
"""

from __future__ import annotations

import hashlib
import os
import threading
from array import array
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memory_app.notes.lib.archive.entries import ArchivedNote, ArchiveLine, reason_kind
from memory_app.notes.lib.archive.file import iter_lines
from memory_app.notes.lib.archive.filters import ArchiveFilter, LineKey, line_key
from qqweb.lib.files import file_lock

BAD_LINES_KEPT = 100  # unreadable lines listed (with their number); all are counted


@dataclass
class ArchiveSummary:
    total: int = 0
    by_reason: Counter[str] = field(default_factory=Counter)
    by_section: Counter[str] = field(default_factory=Counter)
    by_month: Counter[str] = field(default_factory=Counter)
    oldest: str | None = None
    newest: str | None = None
    restored: int = 0
    unreadable: int = 0
    bad_lines: list[ArchiveLine] = field(default_factory=list)
    # lines per (reason group, section, month, restored): a filter's count, no file read
    by_key: Counter[LineKey] = field(default_factory=Counter)

    def matching(self, flt: ArchiveFilter) -> int:
        """How many lines ``flt`` lists."""
        return sum(n for key, n in self.by_key.items() if flt.key_matches(key))

    @classmethod
    def of(cls, data: bytes, first_number: int = 1) -> ArchiveSummary:
        counts = cls()
        for _, line in iter_lines(data, 0, first_number):
            counts.add(line)
        return counts

    def add(self, line: ArchiveLine) -> ArchivedNote | None:
        if line.entry is None:
            self.unreadable += 1
            if len(self.bad_lines) < BAD_LINES_KEPT:
                self.bad_lines.append(ArchiveLine(line.number, line.raw[:500], None, line.error))
            return None
        note = ArchivedNote.from_line(line)
        self.total += 1
        self.by_reason[reason_kind(note.reason)] += 1
        self.by_section[note.section or "(no section)"] += 1
        self.restored += int(note.restored)
        self.by_key[line_key(note)] += 1
        if note.archived_at:
            self.by_month[note.archived_at[:7]] += 1
            self.oldest = min(filter(None, (self.oldest, note.archived_at)))
            self.newest = max(filter(None, (self.newest, note.archived_at)))
        return note

    def plus(self, other: ArchiveSummary) -> ArchiveSummary:
        stamps = [s for s in (self.oldest, self.newest, other.oldest, other.newest) if s]
        return ArchiveSummary(
            total=self.total + other.total,
            by_reason=self.by_reason + other.by_reason,
            by_section=self.by_section + other.by_section,
            by_month=self.by_month + other.by_month,
            oldest=min((s for s in (self.oldest, other.oldest) if s), default=None),
            newest=max(stamps, default=None),
            restored=self.restored + other.restored,
            unreadable=self.unreadable + other.unreadable,
            bad_lines=(self.bad_lines + other.bad_lines)[:BAD_LINES_KEPT],
            by_key=self.by_key + other.by_key,
        )

    def as_stats(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "by_reason": dict(self.by_reason),
            "oldest": self.oldest,
            "newest": self.newest,
            "restored": self.restored,
            "unreadable_lines": self.unreadable,
        }


class ArchiveStatsCache:
    """The statistics of one archive file. ``full_reads`` counts how often the whole file
    was parsed, ``tail_reads`` how often only its appended end was."""

    def __init__(self, path: Path, lock_path: Path) -> None:
        self.path = path
        self.lock_path = lock_path
        self.full_reads = 0
        self.tail_reads = 0
        self._lock = threading.Lock()
        self._key: tuple[int, int, int, int] | None = None
        self._end = 0  # bytes counted in _complete: up to and with the last newline
        self._digest = b""  # of those bytes
        self._complete = ArchiveSummary()
        self._torn = ArchiveSummary()  # what follows the last newline (a line being written)
        self._newlines = 0  # in the bytes counted
        self._starts = array("q")  # byte offset of each complete non-blank line
        self._numbers = array("q")  # ... and its line number
        self._where: dict[str, list[int]] = {}  # note id -> offsets of its lines

    def stats(self) -> dict[str, Any]:
        return self.counts().as_stats()

    def counts(self) -> ArchiveSummary:
        """The file's figures as it is now (read again only if it changed)."""
        with self._lock:
            try:
                st = os.stat(self.path)
            except FileNotFoundError:
                self._forget()
                return ArchiveSummary()
            if (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns) != self._key:
                self._update()
            return self._complete.plus(self._torn)

    def line_number(self, offset: int) -> int:
        """The line number of the line at byte ``offset`` as of the last :meth:`counts`
        (0: not known)."""
        with self._lock:
            at = bisect_left(self._starts, offset)
            found = at < len(self._starts) and self._starts[at] == offset
            return self._numbers[at] if found else 0

    def offsets_of(self, note_id: str) -> list[int]:
        """Where the lines of ``note_id`` start, oldest first, as of now."""
        self.counts()
        with self._lock:
            return list(self._where.get(note_id, ()))

    def _forget(self) -> None:
        self._key, self._end, self._digest = None, 0, b""
        self._complete, self._torn = ArchiveSummary(), ArchiveSummary()
        self._newlines, self._starts, self._numbers = 0, array("q"), array("q")
        self._where = {}

    def _update(self) -> None:
        with file_lock(self.lock_path, exclusive=False), open(self.path, "rb") as handle:
            st = os.fstat(handle.fileno())
            data = handle.read()
        hasher = hashlib.blake2b(data[: self._end])
        appended = (
            self._key is not None
            and self._key[:2] == (st.st_dev, st.st_ino)
            and len(data) >= self._end
            and hasher.digest() == self._digest
        )
        if appended:
            self.tail_reads += 1
        else:
            self._forget()
            hasher = hashlib.blake2b()
            self.full_reads += 1
        cut = data.rfind(b"\n") + 1  # 0: no newline at all
        if cut < self._end:  # cannot be after an append; kept safe
            cut = self._end
        new = data[self._end : cut]
        for at, line in iter_lines(new, self._end, self._newlines + 1):
            note = self._complete.add(line)
            self._starts.append(at)
            self._numbers.append(line.number)
            if note is not None:
                self._where.setdefault(note.note_id, []).append(at)
        self._newlines += new.count(b"\n")
        self._torn = ArchiveSummary.of(data[cut:], self._newlines + 1)
        hasher.update(new)
        self._digest, self._end = hasher.digest(), cut
        self._key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


_caches: dict[Path, ArchiveStatsCache] = {}
_caches_lock = threading.Lock()


def archive_stats_cache(path: Path, lock_path: Path | None = None) -> ArchiveStatsCache:
    """This process's statistics of the archive file at ``path`` (its lock file beside
    it, ``archive.lock``, unless given)."""
    resolved = Path(path).expanduser().resolve()
    with _caches_lock:
        cache = _caches.get(resolved)
        if cache is None:
            lock = Path(lock_path) if lock_path else resolved.parent / "archive.lock"
            cache = _caches[resolved] = ArchiveStatsCache(resolved, lock)
        return cache
