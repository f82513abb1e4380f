"""ArchiveManager: ``archive.jsonl`` in the agent's exact line format.

One JSON object per line with ``note_id``, ``content``, ``section``, ``importance``,
``reason``, ``archived_at``, ``original_created_at``, ``access_count``, ``metadata``, and
``source`` / ``source_history`` only when non-empty. Timestamps are NAIVE LOCAL ISO
strings (``datetime.now().isoformat()``): a ``Z`` or an offset crashes the agent's reader.
Lines we cannot parse are kept untouched and reported.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from .errors import InvalidNote
from .files import append_lines, file_lock

ARCHIVE_FILE = "archive.jsonl"
ARCHIVE_LOCK = "archive.lock"


@dataclass(frozen=True)
class ArchiveLine:
    """One line of the file: parsed (``entry``) or not (``raw`` kept as it was)."""

    number: int
    raw: str
    entry: dict[str, Any] | None
    error: str = ""


@dataclass
class ArchiveReadResult:
    entries: list[dict[str, Any]] = field(default_factory=list)
    bad_lines: list[ArchiveLine] = field(default_factory=list)


def local_naive_iso(value: datetime | None = None) -> str:
    """``datetime.now().isoformat()``: what the agent writes and can read back."""
    return (value or datetime.now()).replace(tzinfo=None).isoformat()


def validate_archive_entry(entry: dict[str, Any]) -> None:
    for name in ("note_id", "content", "reason", "archived_at"):
        if not isinstance(entry.get(name), str) or not entry[name]:
            raise InvalidNote(name, "is required in an archive line")
    for name in ("archived_at", "original_created_at", "restored_at"):
        value = entry.get(name)
        if value is None:
            continue
        if not isinstance(value, str) or value.endswith("Z"):
            raise InvalidNote(name, "must be a naive local ISO string")
        parsed = datetime.fromisoformat(value)
        if parsed.tzinfo is not None:
            raise InvalidNote(name, "must not carry a timezone (the agent cannot read it)")


class ArchiveManager:
    def __init__(self, memory_dir: str | Path = "./memory") -> None:
        self.memory_dir = Path(memory_dir).expanduser()
        self.archive_file = self.memory_dir / ARCHIVE_FILE
        self.lock_file = self.memory_dir / ARCHIVE_LOCK

    def append_entries(self, entries: list[dict[str, Any]]) -> int:
        """Append complete archive lines under the lock, fsynced before returning."""
        for entry in entries:
            validate_archive_entry(entry)
        lines = [json.dumps(entry, ensure_ascii=False) for entry in entries]
        with file_lock(self.lock_file, exclusive=True):
            append_lines(self.archive_file, lines)
        return len(lines)

    def read_lines(self) -> list[ArchiveLine]:
        if not self.archive_file.exists():
            return []
        with file_lock(self.lock_file, exclusive=False):
            text = self.archive_file.read_text(encoding="utf-8", errors="replace")
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

    def read(self) -> ArchiveReadResult:
        result = ArchiveReadResult()
        for line in self.read_lines():
            if line.entry is None:
                result.bad_lines.append(line)
            else:
                result.entries.append(line.entry)
        return result

    def get_archive_stats(self) -> dict[str, Any]:
        """``{total, by_reason, oldest, newest}`` as in the seed, plus restored / unreadable."""
        read = self.read()
        reasons: Counter[str] = Counter()
        stamps: list[str] = []
        for entry in read.entries:
            reason = str(entry.get("reason", ""))
            reasons[reason_kind(reason)] += 1
            if isinstance(entry.get("archived_at"), str):
                stamps.append(entry["archived_at"])
        return {
            "total": len(read.entries),
            "by_reason": dict(reasons),
            "oldest": min(stamps) if stamps else None,
            "newest": max(stamps) if stamps else None,
            "restored": sum(1 for e in read.entries if e.get("restored")),
            "unreadable_lines": len(read.bad_lines),
        }


def reason_kind(reason: str) -> str:
    """Group the agent's reasons: ``importance_decay_0.031`` -> ``importance_decay``."""
    if reason.startswith("importance_decay_"):
        return "importance_decay"
    if reason.startswith("Consolidated with "):
        return "consolidated"
    return reason or "unknown"
