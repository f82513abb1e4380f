"""The catch-up after opening a snapshot, done by one process for all that opened it
(issue 35: every gunicorn worker diffed every note id against MongoDB at start, 66% of
its time in the first minutes at 1M notes).

The first process to take the snapshot's lease (``flock`` on
``catch-up-<snapshot folder>.diff.lock`` beside the snapshot's folder, released by the
kernel if it dies) waits :data:`LEASE_GRACE_S` so the
others' change streams open, diffs, and writes the note ids that changed since the
snapshot to ``catch-up-<snapshot folder>.diff.json`` (written to a temporary name, then
renamed), with the wall-clock instant its diff began. The others wait for the lease (or
find it free: the leader was done before they came) and take those ids
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

SHARED_PREFIX = "catch-up-"  # its files: catch-up-<snapshot folder>.diff.{lock,json}
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
        handle = open(_beside(directory, LEASE), "a+")  # noqa: SIM115 (held while waiting)
    except OSError:  # the snapshot's folder is gone or read-only
        return diff(), True
    with handle:
        waited = False
        while not _take(handle, wait=False):  # another process is diffing
            if stopped():  # the index is closing: nothing to catch up
                return set(), True
            waited = True
            time.sleep(POLL_S)
        since = live_since()  # a result already there: another diffed before we came
        shared = None if since is None else _result(directory, since)
        if shared is not None:
            return shared, False
        if not waited:
            let_others_open()
        started = time.time()
        changed = diff()
        with contextlib.suppress(OSError):
            _write(directory, started, changed)
        return changed, True


def let_others_open() -> None:
    """The leader's wait before its diff, so the change streams of the processes that
    opened the snapshot with it are live when the diff begins (a test waits for exactly
    that instead of a fixed time)."""
    time.sleep(LEASE_GRACE_S)


def _take(handle: object, *, wait: bool) -> bool:
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))  # type: ignore[attr-defined]
        return True
    except BlockingIOError:
        return False


def _result(directory: Path, live_since: float) -> set[str] | None:
    try:
        saved = json.loads(_beside(directory, RESULT).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(saved, dict) or float(saved.get("started", 0)) < live_since:
        return None
    return {str(n) for n in saved.get("changed", [])}


def _write(directory: Path, started: float, changed: set[str]) -> None:
    path = _beside(directory, RESULT)
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    tmp.write_text(json.dumps({"started": started, "changed": sorted(changed)}))
    os.replace(tmp, path)


def _beside(snapshot: Path, name: str) -> Path:
    """``name`` for the snapshot in ``snapshot``, beside it rather than in it: the
    leader's next fold publishes a new snapshot and removes this one's folder, maybe before
    the others have read the result (``state.py`` removes these files an hour later)."""
    return snapshot.parent / f"{SHARED_PREFIX}{snapshot.name}.{name}"
