"""The incremental dedup scan's unchanged notes, taken from the vector index's saved
snapshot instead of MongoDB (no I/O but files).

The vector index saves, under ``QQ_VECTOR_DIR/<db>.<collection>/``, one memory-mapped
segment per dimension: the unit float32 rows of every note it held and their note ids
(``replica/state.py``, ``segments.py``). Segments are never changed once written,
so :func:`link_snapshot` hard-links a segment's ``vectors.npy`` and ``ids.npy`` into the
scan's folder (a copy where the two folders are on different file systems): the scan
then holds its files even when the index saves a newer snapshot and removes this one.
The link is made under the index's shared lock (the one it holds to open a snapshot), so
a snapshot being switched is never half taken.

What may differ from MongoDB: a note written, re-embedded, deleted or put back since the
snapshot. :attr:`Base.newest` bounds that: the snapshot holds the note with the latest
``updated_at`` of all (capped by when the snapshot was saved, against a clock ahead of
ours), so every note written after the snapshot was taken carries an ``updated_at`` (the
agent's, or qqweb's on every write) or a ``qqweb_written_at`` (an undo's exact reinsert)
from about then on. The caller reads those notes from MongoDB, less the clock margin,
and takes their rows out of the base. A note deleted since is not found that way: the
caller checks every pair it found against MongoDB's current vectors before it proposes
one. What stays out of reach is what the incremental scan already misses: a note the
agent writes with a back-dated ``updated_at``.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from memory_app.notes.lib.replica.segments import open_segment

EPOCH = datetime(1970, 1, 1)


@dataclass(frozen=True)
class Base:
    rows: dict[int, int]  # dimension -> rows linked into ``<into>/d<dim>/base.npy``
    newest: datetime  # naive UTC: the snapshot holds every write up to about then


def link_snapshot(root: Path, generation: int, into: Path) -> Base | None:
    """Link the current snapshot's segments (of index generation ``generation``) into
    ``into/d<dim>/base.npy`` and ``base_ids.npy``; None (nothing linked) when there is no
    such snapshot, it cannot be read, or it says nothing about when it was taken."""
    if not (root / "current.json").exists():
        return None
    with _shared(root):
        try:
            current = json.loads((root / "current.json").read_text())
            if current.get("generation") != generation or not current.get("state"):
                return None
            state = root / str(current["state"])
            newest = _newest(state)
            if newest is None:
                return None
            rows: dict[int, int] = {}
            for path in sorted(state.glob("d*-*")):
                segment = open_segment(path)  # checks it is complete
                folder = into / f"d{segment.dim}"
                folder.mkdir(parents=True, exist_ok=True)
                _link(path / "vectors.npy", folder / "base.npy")
                _link(path / "ids.npy", folder / "base_ids.npy")
                rows[segment.dim] = len(segment)
        except (OSError, ValueError, KeyError):
            return None
    return Base(rows, newest)


def base_ids(into: Path) -> set[str]:
    """The note ids of every row :func:`link_snapshot` linked into ``into``."""
    ids: set[str] = set()
    for path in into.glob("d*/base_ids.npy"):
        ids.update(str(note_id) for note_id in np.load(path))
    return ids


def _newest(state: Path) -> datetime | None:
    """The latest ``updated_at`` the snapshot's read model holds (its ``updated_us``
    column over the live rows), no later than the snapshot's save."""
    columns = state / "columns"
    updated = np.load(columns / "updated_us.npy", mmap_mode="r")
    live = np.load(columns / "live.npy", mmap_mode="r")
    stamps = np.asarray(updated[np.asarray(live, dtype=bool)], dtype=np.int64)
    stamps = stamps[stamps != np.iinfo(np.int64).min]
    if not len(stamps):
        return None
    newest = EPOCH + timedelta(microseconds=int(stamps.max()))
    books = state / "books" / "versions.npy"  # the bookkeeping, saved with the snapshot
    saved_file = books if books.exists() else state / "versions.bson"  # (or, before, this)
    saved = datetime.fromtimestamp(saved_file.stat().st_mtime, UTC)
    return min(newest, saved.replace(tzinfo=None))


def _link(source: Path, target: Path) -> None:
    target.unlink(missing_ok=True)
    try:
        os.link(source, target)
    except OSError:  # another file system, or links refused: a copy
        shutil.copyfile(source, target)


@contextmanager
def _shared(root: Path) -> Iterator[None]:
    """The vector index's lock, shared: no snapshot is switched or removed meanwhile."""
    with open(root / ".lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
