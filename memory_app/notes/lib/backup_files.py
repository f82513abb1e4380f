"""The memory directory's files in export and import: ``core.md``, ``notes.md``, the
per-agent ``notes.<id>.md`` and ``archive.jsonl``, read and written byte for byte under
the agent's own locks.

Reading streams a file line by line (split on ``\\n`` only, each line with its newline)
under the shared lock. Importing stages the file beside its target, then, under the
exclusive lock:

- a target that is missing or holds no item (empty, or only the template) is replaced by
  the staged file (``os.replace``, after fsync): the file comes back exactly;
- ``archive.jsonl`` that already holds lines gets the lines it lacks appended (a line
  present byte for byte is not written twice);
- any other existing file is kept as it is, and the outcome says so (``kept``): an
  import never overwrites a file that holds something.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable, Iterator
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from memory_app.notes.lib.errors import InvalidBackupFile
from qqweb.lib.files import append_raw_lines, file_lock, fsync_directory

ARCHIVE = "archive.jsonl"
_NAME = re.compile(r"core\.md|notes\.md|notes\.[A-Za-z0-9_-]{1,64}\.md|archive\.jsonl")
_BULLET = re.compile(rb"^- ", re.MULTILINE)

WRITTEN, SAME, KEPT, MERGED = "written", "same", "kept", "merged"


def checked_file_name(name: str) -> str:
    """One of the memory directory's own files, never a path elsewhere."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise InvalidBackupFile("file", f"{name!r} is not a file of the memory directory")
    return name


def lock_name(name: str) -> str:
    checked_file_name(name)
    if name == ARCHIVE:
        return "archive.lock"
    return name.removesuffix(".md") + ".lock"


@dataclass(frozen=True)
class FilePlan:
    """What importing a file would do: ``written`` (the target holds nothing), ``same``,
    ``kept`` (the target holds other content, which stays) or ``merged`` (archive lines
    appended: ``new_lines`` of them, ``present_lines`` already there)."""

    name: str
    outcome: str
    new_lines: int = 0
    present_lines: int = 0


class MemoryFiles:
    def __init__(self, memory_dir: str | Path) -> None:
        self.memory_dir = Path(memory_dir).expanduser()

    def _path(self, name: str) -> Path:
        return self.memory_dir / checked_file_name(name)

    def _lock(self, name: str) -> Path:
        return self.memory_dir / lock_name(name)

    def names(self) -> list[str]:
        """The directory's memory files that exist, in a stable order."""
        if not self.memory_dir.is_dir():
            return []
        return sorted(p.name for p in self.memory_dir.iterdir() if _NAME.fullmatch(p.name))

    def read_lines(self, name: str) -> Iterator[bytes]:
        """The file's lines with their ``\\n`` (the last one may lack it), under the
        shared lock, a line at a time."""
        path = self._path(name)
        with file_lock(self._lock(name), exclusive=False), open(path, "rb") as handle:
            yield from handle

    def _holds_something(self, path: Path) -> bool:
        if not path.exists():
            return False
        if path.name == ARCHIVE:
            return path.stat().st_size > 0
        return bool(_BULLET.search(path.read_bytes()))

    def _line_hashes(self, path: Path) -> set[bytes]:
        hashes: set[bytes] = set()
        if path.exists():
            with open(path, "rb") as handle:
                for line in handle:
                    hashes.add(_line_key(line))
        return hashes

    def plan(self, name: str, lines: Iterable[bytes]) -> FilePlan:
        """What :meth:`import_file` would do with these lines, writing nothing: no lock
        file is made for a file that is not there (nothing to read; an import that is
        refused leaves the memory directory as it was)."""
        path = self._path(name)
        if not path.exists():
            for _ in lines:
                pass
            return FilePlan(name, WRITTEN)
        with file_lock(self._lock(name), exclusive=False):
            if not self._holds_something(path):
                for _ in lines:
                    pass
                return FilePlan(name, WRITTEN)
            if name == ARCHIVE:
                present = self._line_hashes(path)
                new = old = 0
                for line in lines:
                    key = _line_key(line)
                    if key in present:
                        old += 1
                    else:
                        new += 1
                        present.add(key)
                return FilePlan(name, MERGED if new else SAME, new, old)
            digest = hashlib.sha256()
            for line in lines:
                digest.update(line)
            same = digest.digest() == hashlib.sha256(path.read_bytes()).digest()
            return FilePlan(name, SAME if same else KEPT)

    def import_file(self, name: str, lines: Iterable[bytes]) -> FilePlan:
        """Stage the lines beside the target, then install them as the module says."""
        path = self._path(name)
        staged = path.with_name(f".{name}.qqweb-import")
        self.memory_dir.mkdir(parents=True, exist_ok=True)
        try:
            with open(staged, "wb") as handle:
                for line in lines:
                    handle.write(line)
                handle.flush()
                os.fsync(handle.fileno())
            with file_lock(self._lock(name), exclusive=True):
                return self._install(name, path, staged)
        finally:
            with suppress(FileNotFoundError):
                staged.unlink()

    def _install(self, name: str, path: Path, staged: Path) -> FilePlan:
        if not self._holds_something(path):
            os.replace(staged, path)
            fsync_directory(path.parent)
            return FilePlan(name, WRITTEN)
        if name == ARCHIVE:
            present = self._line_hashes(path)
            missing: list[bytes] = []
            old = 0
            with open(staged, "rb") as handle:
                for line in handle:
                    key = _line_key(line)
                    if key in present:
                        old += 1
                        continue
                    present.add(key)
                    missing.append(line.rstrip(b"\n"))
            if missing:
                append_raw_lines(path, missing)
            return FilePlan(name, MERGED if missing else SAME, len(missing), old)
        same = staged.read_bytes() == path.read_bytes()
        return FilePlan(name, SAME if same else KEPT)


def _line_key(line: bytes) -> bytes:
    return hashlib.sha256(line.rstrip(b"\n")).digest()
