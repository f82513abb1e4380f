"""The archive's statistics (the Overview's figures), kept per file instead of read from
the whole file on every request.

A file is known by its device, inode, size and modification time (``os.stat``, one system
call a request). While those are as they were, the figures are answered from memory;
when only lines were appended (same inode, and the bytes counted before as they were: a
BLAKE2 digest of them), only the new end is parsed and counted; any other change (a
rewrite through a temp file and ``os.replace``, one in place, a truncation) parses the
whole file again. A line the
agent left torn (no newline yet) is counted apart and read again with what follows it.
The figures per process; each process keeps its own.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..files import file_lock
from .entries import ArchivedNote, reason_kind
from .file import parse_lines


@dataclass
class _Counts:
    total: int = 0
    by_reason: Counter[str] = field(default_factory=Counter)
    oldest: str | None = None
    newest: str | None = None
    restored: int = 0
    unreadable: int = 0

    @classmethod
    def of(cls, data: bytes) -> _Counts:
        counts = cls()
        for line in parse_lines(data):
            if line.entry is None:
                counts.unreadable += 1
                continue
            note = ArchivedNote.from_line(line)
            counts.total += 1
            counts.by_reason[reason_kind(note.reason)] += 1
            counts.restored += int(note.restored)
            if note.archived_at:
                counts.oldest = min(filter(None, (counts.oldest, note.archived_at)))
                counts.newest = max(filter(None, (counts.newest, note.archived_at)))
        return counts

    def plus(self, other: _Counts) -> _Counts:
        stamps = [s for s in (self.oldest, self.newest, other.oldest, other.newest) if s]
        return _Counts(
            total=self.total + other.total,
            by_reason=self.by_reason + other.by_reason,
            oldest=min((s for s in (self.oldest, other.oldest) if s), default=None),
            newest=max(stamps, default=None),
            restored=self.restored + other.restored,
            unreadable=self.unreadable + other.unreadable,
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
        self._complete = _Counts()
        self._torn = _Counts()  # what follows the last newline (a line being written)

    def stats(self) -> dict[str, Any]:
        with self._lock:
            try:
                st = os.stat(self.path)
            except FileNotFoundError:
                self._forget()
                return _Counts().as_stats()
            if (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns) != self._key:
                self._update()
            return self._complete.plus(self._torn).as_stats()

    def _forget(self) -> None:
        self._key, self._end, self._digest = None, 0, b""
        self._complete, self._torn = _Counts(), _Counts()

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
        self._complete = self._complete.plus(_Counts.of(data[self._end : cut]))
        self._torn = _Counts.of(data[cut:])
        hasher.update(data[self._end : cut])
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
