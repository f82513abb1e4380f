"""File primitives: the archive, the markdown notes files and the backup's import of them.

The agent locks with ``fcntl.flock`` on a ``*.lock`` file beside the data file (exclusive
to write, shared to read) and rewrites through a temp file in the same directory plus
``os.replace``. We do the same, and fsync before the rename so a crash leaves either the
old file or the new one, never half of each.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path


@contextmanager
def file_lock(lock_path: Path, *, exclusive: bool) -> Iterator[None]:
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "a") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temp file in the same directory (caller locks)."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temp file in the same directory (caller locks)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        # mkstemp makes the file 0600; keep the mode the agent's plain writes would give.
        os.fchmod(fd, path.stat().st_mode & 0o777 if path.exists() else _default_mode())
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        with suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise
    fsync_directory(path.parent)


def _default_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def append_lines(path: Path, lines: list[str]) -> None:
    """Append whole lines and fsync them before returning (caller locks).

    The agent appends without a lock, and a write of its that was cut off leaves the file
    without its last newline: one is added first, so our line starts on a line of its own
    instead of being glued onto the torn one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    append_raw_lines(path, [line.rstrip("\n").encode("utf-8") for line in lines])


def append_raw_lines(path: Path, lines: list[bytes]) -> None:
    """Append whole lines given as bytes, without their newline (kept exactly, UTF-8 or
    not), and fsync them, on a line of their own after a torn last line (caller locks)."""
    data = b"".join(line + b"\n" for line in lines)
    with open(path, "a+b") as handle:  # every write goes to the end, whatever the position
        size = handle.seek(0, os.SEEK_END)
        if size:
            handle.seek(size - 1)
            if handle.read(1) != b"\n":
                data = b"\n" + data
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def fsync_directory(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
