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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..files import append_lines, atomic_write_bytes, file_lock
from .entries import validate_archive_entry


@dataclass(frozen=True)
class ArchiveLine:
    """One line of the file (1-based ``number``, without its newline): parsed (``entry``)
    or not (``error`` says why). ``raw`` is its text for display (invalid UTF-8 shown as
    U+FFFD); ``data`` its exact bytes, which a rewrite keeps."""

    number: int
    raw: str
    entry: dict[str, Any] | None
    error: str = ""
    data: bytes = b""


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
    result = []
    for number, line in enumerate(data.split(b"\n"), start=1):
        if not line.strip():
            continue
        raw = line.decode("utf-8", errors="replace")
        try:
            entry = json.loads(line.decode("utf-8"))
        except UnicodeDecodeError:
            result.append(ArchiveLine(number, raw, None, "not UTF-8", line))
            continue
        except json.JSONDecodeError as e:
            result.append(ArchiveLine(number, raw, None, f"not JSON: {e.msg}", line))
            continue
        if not isinstance(entry, dict) or "note_id" not in entry:
            result.append(ArchiveLine(number, raw, None, "not an archived note", line))
            continue
        result.append(ArchiveLine(number, raw, entry, "", line))
    return result
