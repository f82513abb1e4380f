"""``archive.jsonl`` as a file: read and parse it, append to it, rewrite it, all under our
lock (``archive.lock`` beside it, ``fcntl.flock``: shared to read, exclusive to write).

Appends are flushed and fsynced before returning, on a line of their own even after a
torn line of the agent's; a rewrite goes through a temp file in the same directory and
``os.replace``. Lines are split on ``\n`` only (a note may hold U+2028 or U+0085, which
``str.splitlines`` would split on); lines we cannot parse, invalid UTF-8 included, are kept
byte for byte and reported.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from memory_app.notes.lib.archive.entries import ArchiveLine, validate_archive_entry
from qqweb.lib.files import append_lines, atomic_write_bytes, file_lock


class ArchiveFile:
    def __init__(self, path: Path, lock_path: Path) -> None:
        self.path = path
        self.lock_path = lock_path

    def read_lines(self) -> list[ArchiveLine]:
        if not self.path.exists():
            return []
        with file_lock(self.lock_path, exclusive=False):
            data = self.path.read_bytes()
        return parse_lines(data)

    def lines_before(self, end: int | None, budget: int) -> tuple[list[tuple[int, bytes]], int]:
        """The complete lines before byte ``end`` (None: the end of the file; a line still
        being written, with no newline yet, is left out), newest first, reading back about
        ``budget`` bytes (whole lines, at least one): ``[(offset, line)]`` and the offset
        the reading stopped at (0: the start of the file). A page of the archive reads
        this much, never the whole file. Lines are numbered 0 (counting them would read
        from the start; :class:`~.stats.ArchiveStatsCache` knows their numbers)."""
        if not self.path.exists():
            return [], 0
        with file_lock(self.lock_path, exclusive=False), open(self.path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            stop = size if end is None else max(0, min(end, size))
            window = max(budget, 1024)
            while True:
                start = max(0, stop - window)
                handle.seek(start)
                data = handle.read(stop - start)
                if end is None:  # leave out a line still being written
                    cut = data.rfind(b"\n") + 1
                    if cut == 0 and start > 0:
                        window *= 2
                        continue
                    data = data[:cut]
                if start > 0:  # the bytes before the first newline end an older line
                    first = data.find(b"\n")
                    if first < 0 or first + 1 >= len(data):  # one line longer than the window
                        window *= 2
                        continue
                    data, start = data[first + 1 :], start + first + 1
                break
        out, at = [], start
        for line in data.split(b"\n")[:-1]:  # data ends with a newline
            if line.strip():
                out.append((at, line))
            at += len(line) + 1
        return out[::-1], start

    def line_at(self, offset: int) -> ArchiveLine | None:
        """The line that starts at byte ``offset`` (None past the end)."""
        if not self.path.exists():
            return None
        with file_lock(self.lock_path, exclusive=False), open(self.path, "rb") as handle:
            handle.seek(offset)
            data = handle.readline()
        if not data.endswith(b"\n"):
            return None
        return parse_line(0, data[:-1])

    def append(self, entries: Sequence[Mapping[str, Any]]) -> int:
        """Append complete archive lines under the lock, fsynced before returning."""
        for entry in entries:
            validate_archive_entry(entry)
        lines = [json.dumps(entry, ensure_ascii=False) for entry in entries]
        with file_lock(self.lock_path, exclusive=True):
            append_lines(self.path, lines)
        return len(lines)

    def rewrite(self, edit: Edit) -> None:
        """Rewrite the file under the lock. ``edit`` gets every line as it is now and returns
        the new lines: a line as it was (kept byte for byte) or a new entry. Nothing is
        written when ``edit`` raises, or returns the lines unchanged."""
        with file_lock(self.lock_path, exclusive=True):
            if not self.path.exists():
                return
            lines = parse_lines(self.path.read_bytes())
            new = edit(lines)
            if len(new) == len(lines) and all(a is b for a, b in zip(new, lines, strict=True)):
                return
            out: list[bytes] = []
            for line in new:
                if isinstance(line, ArchiveLine):
                    out.append(line.data or line.raw.encode("utf-8"))
                else:
                    validate_archive_entry(line)
                    out.append(json.dumps(line, ensure_ascii=False).encode("utf-8"))
            atomic_write_bytes(self.path, b"".join(line + b"\n" for line in out))


Edit = Callable[[list[ArchiveLine]], Sequence[ArchiveLine | Mapping[str, Any]]]


def parse_lines(data: bytes) -> list[ArchiveLine]:
    """Every non-blank line of the file, parsed or not, numbered as an editor would."""
    return [line for _, line in iter_lines(data)]


def iter_lines(
    data: bytes, offset: int = 0, first_number: int = 1
) -> Iterator[tuple[int, ArchiveLine]]:
    """``(byte offset, line)`` of every non-blank line of ``data``, which starts at byte
    ``offset`` of the file, on line ``first_number``."""
    start = 0
    for number, line in enumerate(data.split(b"\n"), start=first_number):
        at, start = offset + start, start + len(line) + 1
        if line.strip():
            yield at, parse_line(number, line)


def parse_line(number: int, line: bytes) -> ArchiveLine:
    raw = line.decode("utf-8", errors="replace")
    try:
        entry = json.loads(line.decode("utf-8"))
    except UnicodeDecodeError:
        return ArchiveLine(number, raw, None, "not UTF-8", line)
    except json.JSONDecodeError as e:
        return ArchiveLine(number, raw, None, f"not JSON: {e.msg}", line)
    if not isinstance(entry, dict) or "note_id" not in entry:
        return ArchiveLine(number, raw, None, "not an archived note", line)
    return ArchiveLine(number, raw, entry, "", line)
