"""The catch-up after opening a snapshot, done by one process for all that opened it
(issue 35: every gunicorn worker diffed every note id against MongoDB at start, 66% of
its time in the first minutes at 1M notes).

The first process to take the snapshot's lease (``flock`` on ``diff.lock`` in the
snapshot's folder, released by the kernel if it dies) waits :data:`LEASE_GRACE_S` so the
others' change streams open, diffs, and writes the note ids that changed since the
snapshot to ``diff.json`` beside it (written to a temporary name, then renamed), with
the wall-clock instant its diff began. The others wait for the lease and take those ids
(each process re-reads them into its own overlay) instead of diffing, **if** the diff
began after their own change stream was live: every change after that instant reaches
them through their stream, every change before it is in the result. Otherwise (no
change stream, a stream opened later, a result left from an earlier start, a folder that
cannot be written) a process diffs itself, as before.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

LEASE = "diff.lock"
RESULT = "diff.json"
LEASE_GRACE_S = 1.0  # the leader waits this long before diffing: the others' streams open
POLL_S = 0.1


def catch_up(
    directory: Path | None,
    live_since: Callable[[], float | None] | None,
    diff: Callable[[], set[str]],
    stopped: Callable[[], bool],
) -> tuple[set[str], bool]:
    """The note ids changed since the snapshot in ``directory`` was saved, and whether
    this process diffed them itself (``diff()``) or took another's result.
    ``live_since()``: the wall-clock instant this process's change stream became live,
    asked once the lease is free (None: not live, it takes no other result; ``None``
    instead of the callable: it follows no stream and diffs at once)."""
    if directory is None or live_since is None:
        return diff(), True
    try:
        handle = open(directory / LEASE, "a+")  # noqa: SIM115 (held while waiting)
    except OSError:  # the snapshot's folder is gone or read-only
        return diff(), True
    with handle:
        if not _take(handle, wait=False):
            while not _take(handle, wait=False):  # another process is diffing
                if stopped():  # the index is closing: nothing to catch up
                    return set(), True
                time.sleep(POLL_S)
            since = live_since()
            shared = None if since is None else _result(directory, since)
            if shared is not None:
                return shared, False
        else:
            time.sleep(LEASE_GRACE_S)
        started = time.time()
        changed = diff()
        with contextlib.suppress(OSError):
            _write(directory, started, changed)
        return changed, True


def _take(handle: object, *, wait: bool) -> bool:
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))  # type: ignore[attr-defined]
        return True
    except BlockingIOError:
        return False


def _result(directory: Path, live_since: float) -> set[str] | None:
    try:
        saved = json.loads((directory / RESULT).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(saved, dict) or float(saved.get("started", 0)) < live_since:
        return None
    return {str(n) for n in saved.get("changed", [])}


def _write(directory: Path, started: float, changed: set[str]) -> None:
    tmp = directory / f".{RESULT}.{os.getpid()}"
    tmp.write_text(json.dumps({"started": started, "changed": sorted(changed)}))
    os.replace(tmp, directory / RESULT)
