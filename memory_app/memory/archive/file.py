"""``archive.jsonl`` as a file: read and parse it, append to it, rewrite it, all under our
lock (``archive.lock`` beside it, ``fcntl.flock``: shared to read, exclusive to write).

Appends are flushed and fsynced before returning; a rewrite goes through a temp file in
the same directory and ``os.replace``. Lines we cannot parse are kept as they were and
reported.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..files import append_lines, atomic_write_text, file_lock
from .entries import validate_archive_entry


@dataclass(frozen=True)
class ArchiveLine:
    """One line of the file: parsed (``entry``) or not (``raw`` kept as it was)."""

    number: int
    raw: str
    entry: dict[str, Any] | None
    error: str = ""


class ArchiveFile:
    def __init__(self, path: Path, lock_path: Path) -> None:
        self.path = path
        self.lock_path = lock_path

    def read_lines(self) -> list[ArchiveLine]:
        if not self.path.exists():
            return []
        with file_lock(self.lock_path, exclusive=False):
            text = self.path.read_text(encoding="utf-8", errors="replace")
        return parse_lines(text)

    def append(self, entries: list[dict[str, Any]]) -> int:
        """Append complete archive lines under the lock, fsynced before returning."""
        for entry in entries:
            validate_archive_entry(entry)
        lines = [json.dumps(entry, ensure_ascii=False) for entry in entries]
        with file_lock(self.lock_path, exclusive=True):
            append_lines(self.path, lines)
        return len(lines)

    def rewrite(self, change: Callable[[ArchiveLine], Any]) -> int:
        """Rewrite the file line by line under the lock; ``change`` returns the line as it
        was (kept byte for byte), a new entry dict, or None (dropped). Returns how many
        lines were dropped."""
        with file_lock(self.lock_path, exclusive=True):
            if not self.path.exists():
                return 0
            lines = parse_lines(self.path.read_text(encoding="utf-8", errors="replace"))
            out: list[str] = []
            dropped = 0
            for line in lines:
                result = change(line)
                if result is None:
                    dropped += 1
                elif isinstance(result, ArchiveLine):
                    out.append(result.raw)
                else:
                    validate_archive_entry(result)
                    out.append(json.dumps(result, ensure_ascii=False))
            atomic_write_text(self.path, "".join(f"{raw}\n" for raw in out))
            return dropped


def parse_lines(text: str) -> list[ArchiveLine]:
    result = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            entry = json.loads(raw)
        except json.JSONDecodeError as e:
            result.append(ArchiveLine(number, raw, None, f"not JSON: {e.msg}"))
            continue
        if not isinstance(entry, dict) or "note_id" not in entry:
            result.append(ArchiveLine(number, raw, None, "not an archived note"))
            continue
        result.append(ArchiveLine(number, raw, entry))
    return result
