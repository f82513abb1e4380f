"""A snapshot of the vector index: its segments (one per dimension) and the
``(_id, updated_at)`` of every note they were built from, saved under one directory.

Layout of ``directory`` (one per database and collection)::

    current.json             {"generation": g, "state": "state-<id>"}
    state-<id>/d384-<id>/    a segment (replica/segments.py)
    state-<id>/columns/      the read model's columns (replica/read_model.py)
    state-<id>/books/        each note's id, version and segment row (replica/books.py)
    building-<id>/           a snapshot being written (renamed to state-<id> when complete)
    .lock                    flock: exclusive to publish a snapshot and remove old ones,
                             shared to open the current one

A process reads ``current.json`` at start; a snapshot of another generation (a rebuild was
asked for since) is ignored, and a save never replaces a newer generation's snapshot.

Every process on the machine (each gunicorn worker, each Celery worker) folds and saves
snapshots in the same directory, so they are shared by one rule: **a published snapshot's
files are only opened by path under the lock, and only removed under the exclusive
lock**. A snapshot is written under a temporary name (``building-<id>``, which no other
process opens, nor removes before it is an hour old) and opened there by its writer; then,
under the exclusive lock, renamed to ``state-<id>`` and published by replacing
``current.json`` (written to a temporary name, then ``os.replace``). A starting process
opens the current one under the shared lock; the incremental dedup scan links its files
under the shared lock (``dedup/base.py``). Once opened, a snapshot's files are
memory-mapped or read whole, and an unlinked file stays readable through its mapping, so
removing a snapshot another process has open takes nothing from it (its disk space is
freed when the last mapping goes). Whoever publishes removes, under the same lock, every
snapshot but the current one and its own.

Why a lock rather than generation numbers with a grace period or reader leases: the
readers already took this lock; the bug was that a writer opened its new snapshot after
letting the lock go, and another process's save removed it in between (137 web and 82
worker "refresh failed" errors in a short run with gunicorn's 3 workers and a Celery
worker). A grace period only makes that rarer, and leases need expiry and cleanup of dead
readers' leases; ``flock`` is released by the kernel when a process dies, costs
microseconds, and the exclusive hold is a rename, a small file and the removals (the
open, the slow part at 1M notes, comes before). It assumes a local file system
(``flock`` over NFS is not to be trusted): the directory is per machine
(``QQ_VECTOR_DIR``).
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import bson
import numpy as np

from memory_app.notes.lib.replica import shared_diff
from memory_app.notes.lib.replica.books import (
    Books,
    SegmentRows,
    Versions,
    object_key,
    version_key,
    versions_of,
)
from memory_app.notes.lib.replica.read_model import ReadModel, stamp
from memory_app.notes.lib.replica.segments import Segment, build_segment, open_segment

CHUNK = 4096
BUILD_ABANDONED_S = 3600  # a ``building-*`` folder this old was left by a process that died


@dataclass
class Snapshot:
    generation: int
    segments: dict[int, Segment]
    books: Books  # each note's version and segment row (replica/books.py)
    read_model: ReadModel = field(default_factory=ReadModel)
    directory: Path | None = None

    @classmethod
    def empty(cls) -> Snapshot:
        return cls(0, {}, Books.empty())

    def row_of(self, note_id: str) -> tuple[int, int] | None:
        """``(dim, row)`` of the note's vector in the segments, if it has one."""
        return self.books.row_of(note_id)

    @property
    def rows(self) -> SegmentRows:
        """Every ``note_id -> (dim, row)`` of the segments, as a read-only mapping."""
        return SegmentRows(self.books)

    def folded(
        self,
        masked: dict[int, np.ndarray],
        delta: dict[str, tuple[int, str, np.ndarray]],
        versions: Versions,
        model: ReadModel,
        root: Path | None,
        exact_below: int,
    ) -> Snapshot:
        """The live rows of these segments plus ``delta``, as a new saved snapshot."""
        columns: dict[int, Columns] = {}
        for dim, segment in self.segments.items():
            keep = np.flatnonzero(~masked[dim])
            cols = columns.setdefault(dim, Columns(dim))
            for start in range(0, len(keep), CHUNK):
                rows = keep[start : start + CHUNK]
                cols.extend(
                    segment.ids[rows].tolist(),
                    segment.sections[rows].tolist(),
                    segment.vectors[rows],
                    None if segment.lists is None else segment.lists.of_rows(rows),
                )
        for note_id, (dim, section, row) in delta.items():
            columns.setdefault(dim, Columns(dim)).append(note_id, section, row)
        centroids = {d: s.lists.centroids for d, s in self.segments.items() if s.lists}
        books = versions.columns()
        return _save(self.generation, columns, books, model, root, exact_below, centroids)

    def moved_to(self, directory: Path) -> None:
        """Its folder was renamed (published): the paths it keeps follow."""
        self.directory = directory
        for segment in self.segments.values():
            if segment.path is not None:
                segment.path = directory / segment.path.name

    def retire(self) -> None:
        """Delete this snapshot's files unless it is the current one."""
        if self.directory is None:
            return
        root = self.directory.parent
        with _locked(root, fcntl.LOCK_EX):
            if _current(root).get("state") != self.directory.name:
                shutil.rmtree(self.directory, ignore_errors=True)


class Columns:
    """Rows of one dimension gathered in chunks (no Python list of floats per note)."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.ids: list[str] = []
        self.sections: list[str] = []
        self.chunks: list[np.ndarray] = []
        self.lists: list[np.ndarray] = []  # per chunk: each row's list (-1: not known)
        # allocated by the first append: ``setdefault(dim, Columns(dim))`` builds one per
        # note read (6 MB each at 384 dimensions: about a second a 100k-note load)
        self._open: np.ndarray | None = None
        self._filled = 0

    def append(self, note_id: str, section: str, row: np.ndarray) -> None:
        if self._open is None:
            self._open = np.empty((CHUNK, self.dim), dtype=np.float32)
        self.ids.append(note_id)
        self.sections.append(section)
        self._open[self._filled] = row
        self._filled += 1
        if self._filled == CHUNK:
            self.chunks.append(self._open)
            self.lists.append(np.full(CHUNK, -1, np.int64))  # new rows: list not known
            self._open = None
            self._filled = 0

    def extend(
        self, ids: list[str], sections: list[str], rows: np.ndarray, lists: np.ndarray | None
    ) -> None:
        self._flush()
        self.ids.extend(ids)
        self.sections.extend(sections)
        self.chunks.append(np.asarray(rows, dtype=np.float32))
        self.lists.append(np.full(len(ids), -1, np.int64) if lists is None else lists)

    def _flush(self) -> None:
        if self._filled and self._open is not None:
            self.chunks.append(self._open[: self._filled].copy())
            self.lists.append(np.full(self._filled, -1, np.int64))
            self._filled = 0

    def known_lists(self) -> np.ndarray:
        """Each row's list in the segment it comes from (-1 for new rows)."""
        self._flush()
        return np.concatenate(self.lists) if self.lists else np.zeros(0, np.int64)

    def matrix(self) -> np.ndarray:
        """The rows as one array. The chunks are released as they are copied (at 1M rows
        they are 1.5 GB: concatenating them whole held two copies at once), so this is
        called once, after ``known_lists`` may be."""
        self._flush()
        out = np.empty((sum(len(c) for c in self.chunks), self.dim), dtype=np.float32)
        at = 0
        while self.chunks:
            chunk = self.chunks.pop(0)
            out[at : at + len(chunk)] = chunk
            at += len(chunk)
        return out


def build_snapshot(
    docs: Iterator[dict[str, Any]], generation: int, root: Path | None, exact_below: int
) -> Snapshot:
    """A snapshot of every note ``docs`` yields (``note_id``, ``_id``, ``section``,
    ``embedding``, ``updated_at``), saved under ``root`` when one is given."""
    columns: dict[int, Columns] = {}
    ids: dict[str, int] = {}  # note id -> its place in the two lists (a note read twice)
    versions: list[int] = []
    objects: list[int] = []
    model = ReadModel()
    for doc in docs:
        note_id = str(doc["note_id"])
        if note_id not in ids:
            ids[note_id] = len(versions)
            versions.append(0)
            objects.append(0)
        at = ids[note_id]
        versions[at] = version_key(doc.get("_id"), stamp(doc))
        objects[at] = object_key(doc.get("_id"))
        model.put(doc)
        vector = doc.get("embedding")
        if vector is None or len(vector) == 0 or isinstance(vector, (bytes, str)):
            continue
        row = np.asarray(vector, dtype=np.float32)
        if row.ndim != 1:
            continue
        norm = float(np.linalg.norm(row))
        cols = columns.setdefault(len(row), Columns(len(row)))
        cols.append(note_id, str(doc.get("section") or ""), row / norm if norm else row)
    return _save(generation, columns, (list(ids), versions, objects), model, root, exact_below)


def _save(
    generation: int,
    columns: dict[int, Columns],
    versions: tuple[list[str], list[int], list[int]],
    model: ReadModel,
    root: Path | None,
    exact_below: int,
    centroids: dict[int, np.ndarray] | None = None,
) -> Snapshot:
    """Segments of ``columns`` (grouped around ``centroids``' lists where given: a fold),
    saved under ``root`` with the versions and the read model."""
    centroids = centroids or {}

    def segment(dim: int, cols: Columns, directory: Path | None) -> Segment:
        return build_segment(
            dim,
            cols.ids,
            cols.sections,
            cols.matrix(),
            directory,
            exact_below=exact_below,
            centroids=centroids.get(dim),
            known=cols.known_lists() if dim in centroids else None,
        )

    if root is None:
        segments = {dim: segment(dim, cols, None) for dim, cols in columns.items()}
        return Snapshot(generation, segments, Books.build(*versions, segments), model)
    root.mkdir(parents=True, exist_ok=True)
    name = uuid.uuid4().hex[:12]
    building = root / f"building-{name}"
    building.mkdir()
    segments = {dim: segment(dim, cols, building) for dim, cols in columns.items()}
    model.save(building / "columns")
    Books.build(*versions, segments).save(building / "books")
    for path in (building / "books").iterdir():
        with open(path, "rb") as saved:
            os.fsync(saved.fileno())
    # opened under its temporary name, which no other process touches, before it is
    # published: once the lock is let go another process's save may publish a newer one
    # and remove this one (the mapped files stay readable; paths do not)
    snapshot = _open(building, generation)
    state = root / f"state-{name}"
    with _locked(root, fcntl.LOCK_EX):
        building.rename(state)
        if _current(root).get("generation", generation) <= generation:
            tmp = root / f"current-{name}.json"
            tmp.write_text(json.dumps({"generation": generation, "state": state.name}))
            os.replace(tmp, root / "current.json")
        _clean(root, keep=state.name)
    snapshot.moved_to(state)
    return snapshot


def load_snapshot(root: Path, generation: int) -> Snapshot | None:
    """The saved snapshot of this generation, memory-mapped; None when there is none (or
    it cannot be read: the caller then reads everything)."""
    if not (root / "current.json").exists():
        return None
    with _locked(root, fcntl.LOCK_SH):
        current = _current(root)
        if current.get("generation") != generation or not current.get("state"):
            return None
        try:
            return _open(root / current["state"], generation)
        except (OSError, ValueError, KeyError, bson.errors.BSONError):
            return None


def _open(state: Path, generation: int) -> Snapshot:
    """The snapshot saved in ``state``, memory-mapped: milliseconds at any size. One saved
    before the bookkeeping was kept in columns (``versions.bson``) has its books built
    here, once per process (seconds at 1M notes), until the next fold replaces it."""
    segments = {}
    for path in sorted(state.glob("d*-*")):
        segment = open_segment(path)
        segments[segment.dim] = segment
    if (state / "books").is_dir():
        books = Books.open(state / "books")
    else:
        versions: dict[str, tuple[Any, tuple[Any, ...]]] = {}
        for part in bson.decode_all((state / "versions.bson").read_bytes()):
            for n, o, u in zip(part["n"], part["o"], part["u"], strict=True):
                versions[n] = (o, tuple(u))
        books = Books.build(*versions_of(versions), segments)
    return Snapshot(generation, segments, books, ReadModel.open(state / "columns"), state)


def _current(root: Path) -> dict[str, Any]:
    try:
        return dict(json.loads((root / "current.json").read_text()))
    except (OSError, ValueError):
        return {}


def _clean(root: Path, keep: str) -> None:
    """Remove the snapshots that are neither current nor ``keep`` (the caller's, just
    opened), and snapshots abandoned half-written over an hour ago (under the exclusive
    lock: nobody is opening one meanwhile)."""
    current = _current(root).get("state")
    for path in root.iterdir():
        hour_old = _older_than(path, BUILD_ABANDONED_S)
        if path.name.startswith(shared_diff.SHARED_PREFIX):  # a catch-up's lease, result
            of_state = path.name.removeprefix(shared_diff.SHARED_PREFIX).split(".")[0]
            if hour_old and of_state not in (keep, current):
                path.unlink(missing_ok=True)
        elif (path.name.startswith("state-") and path.name not in (keep, current)) or (
            path.name.startswith("building-") and hour_old
        ):
            shutil.rmtree(path, ignore_errors=True)


def _older_than(path: Path, seconds: float) -> bool:
    try:
        return time.time() - path.stat().st_mtime > seconds
    except FileNotFoundError:  # a catch-up result renamed meanwhile (outside this lock)
        return False


@contextmanager
def _locked(root: Path, mode: int) -> Iterator[None]:
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".lock", "a") as handle:
        fcntl.flock(handle, mode)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
