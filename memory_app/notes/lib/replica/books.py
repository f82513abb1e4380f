"""The vector index's bookkeeping per note, as numpy arrays memory-mapped from the
snapshot instead of Python objects per note.

For every note a snapshot was built from, the index must know: what the note looked like
(its ``_id`` and stamp, ``read_model.stamp``: the catch-up's diff compares them with what
MongoDB holds), which note an ``_id`` is (a delete handed over by the change stream names
only the ``_id``), and where its vector is in the segments (a changed note's row is
masked). These were three dicts built when a process opened a snapshot: at 1M notes 8 s
in one process, 21 s with three workers opening at once, and most of each worker's
private 1.1 GB (the tuples of datetimes alone). Now they are columns saved with the
snapshot (``books/`` beside the segments):

- ``note_ids.npy``: the note ids, UTF-8, sorted (a lookup is one ``searchsorted``);
- ``versions.npy``: a 64-bit hash of each note's ``(_id, stamp)`` (:func:`version_key`);
- ``objects.npy`` and ``object_order.npy``: a 64-bit hash of each ``_id`` (0: none) and
  the order that sorts them;
- ``dims.npy`` and ``rows.npy``: the segment (dimension, 0 for none) and row of each
  note's vector.

They are opened read-only memory-mapped, so every process on the machine shares the pages
and opening costs milliseconds whatever the size. What changes after the snapshot lives
in :class:`Versions`' small overlay (a dict of the notes changed since), folded into the
next snapshot's columns. A hash collision between two different versions of one note
(2^-64) would hide one change from the diff; the change stream and the writer's own
notifications do not depend on it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import bson
import numpy as np

if TYPE_CHECKING:
    from memory_app.notes.lib.replica.segments import Segment

Version = tuple[Any, tuple[Any, ...]]  # (_id, stamp)
NO_OBJECT = 0  # the object key of a note without an ``_id``
_FILES = ("note_ids", "versions", "objects", "object_order", "dims", "rows")


def _hash(value: dict[str, Any]) -> int:
    raw = hashlib.blake2b(bson.encode(value), digest_size=8).digest()
    return int.from_bytes(raw, "little", signed=True) or 1


def version_key(object_id: Any, stamp: Sequence[Any]) -> int:
    """A 64-bit hash of a note's ``(_id, stamp)``, the same in every process."""
    return _hash({"o": object_id, "s": list(stamp)})


def object_key(object_id: Any) -> int:
    return NO_OBJECT if object_id is None else _hash({"o": object_id})


def _encoded(note_ids: Iterable[str]) -> np.ndarray:
    raw = [n.encode() for n in note_ids]
    width = max((len(r) for r in raw), default=1) or 1
    return np.asarray(raw, dtype=f"S{width}")


@dataclass
class Books:
    """The bookkeeping of one snapshot (see the module's docstring). Never changed."""

    note_ids: np.ndarray  # bytes, sorted
    versions: np.ndarray  # int64
    objects: np.ndarray  # int64 (NO_OBJECT: none)
    object_order: np.ndarray  # int64, sorts ``objects``
    dims: np.ndarray  # int32 (0: no vector in a segment)
    rows: np.ndarray  # int64

    @classmethod
    def empty(cls) -> Books:
        return cls.build([], [], [], {})

    @classmethod
    def build(
        cls,
        note_ids: Sequence[str],
        versions: Sequence[int],
        objects: Sequence[int],
        segments: dict[int, Segment],
    ) -> Books:
        ids = _encoded(note_ids)
        order = np.argsort(ids, kind="stable")
        ids = ids[order]
        version_arr = np.asarray(versions, dtype=np.int64).reshape(-1)[order]
        object_arr = np.asarray(objects, dtype=np.int64).reshape(-1)[order]
        dims = np.zeros(len(ids), dtype=np.int32)
        rows = np.full(len(ids), -1, dtype=np.int64)
        for dim, segment in segments.items():
            if not len(segment):
                continue
            seg_ids = _encoded(segment.ids.tolist())
            at = np.searchsorted(ids, seg_ids)
            at = np.minimum(at, max(len(ids) - 1, 0))
            if len(ids) == 0 or not (ids[at] == seg_ids).all():
                raise ValueError("a segment holds a note the snapshot has no version of")
            dims[at] = dim
            rows[at] = np.arange(len(segment), dtype=np.int64)
        return cls(ids, version_arr, object_arr, np.argsort(object_arr, kind="stable"), dims, rows)

    def save(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        for name in _FILES:
            np.save(directory / f"{name}.npy", getattr(self, name))

    @classmethod
    def open(cls, directory: Path) -> Books:
        """Read-only memory-mapped (raises OSError when a file is missing)."""
        arrays = {n: np.load(directory / f"{n}.npy", mmap_mode="r") for n in _FILES}
        books = cls(**arrays)
        if len({len(a) for a in arrays.values()}) != 1:
            raise ValueError(f"the bookkeeping under {directory} is incomplete")
        return books

    def __len__(self) -> int:
        return len(self.note_ids)

    def positions(self, note_ids: Sequence[str]) -> np.ndarray:
        """The position of each note (-1: not in this snapshot)."""
        if not len(self.note_ids) or not len(note_ids):
            return np.full(len(note_ids), -1, dtype=np.int64)
        keys = np.asarray([n.encode() for n in note_ids], dtype=bytes)
        at = np.minimum(np.searchsorted(self.note_ids, keys), len(self.note_ids) - 1)
        found = self.note_ids[at] == keys
        return np.where(found, at, -1).astype(np.int64)

    def position(self, note_id: str) -> int:
        return int(self.positions([note_id])[0])

    def row_of(self, note_id: str) -> tuple[int, int] | None:
        """Where the note's vector is in the segments, if it has one."""
        at = self.position(note_id)
        if at < 0 or not self.dims[at]:
            return None
        return int(self.dims[at]), int(self.rows[at])

    def with_object(self, object_id: Any) -> list[str]:
        """The notes whose ``_id`` hashes as ``object_id``'s (one, but for a collision)."""
        key = object_key(object_id)
        lo = int(np.searchsorted(self.objects, key, side="left", sorter=self.object_order))
        hi = int(np.searchsorted(self.objects, key, side="right", sorter=self.object_order))
        return [self.note_ids[int(p)].decode() for p in self.object_order[lo:hi]]


class SegmentRows(Mapping[str, tuple[int, int]]):
    """``note_id -> (dim, row)`` of every vector in a snapshot's segments, looked up in
    its books (the dict this replaces was built at every open)."""

    def __init__(self, books: Books) -> None:
        self._books = books

    def __getitem__(self, note_id: str) -> tuple[int, int]:
        where = self._books.row_of(note_id)
        if where is None:
            raise KeyError(note_id)
        return where

    def __iter__(self) -> Iterator[str]:
        held = np.flatnonzero(np.asarray(self._books.dims) > 0)
        return (n.decode() for n in self._books.note_ids[held].tolist())

    def __len__(self) -> int:
        return int(np.count_nonzero(np.asarray(self._books.dims)))


class Versions:
    """What the index knows of every note now: a snapshot's :class:`Books` plus the notes
    changed since (``None``: deleted). Not thread-safe: the index's lock guards it."""

    def __init__(self, books: Books) -> None:
        self.books = books
        self.changed: dict[str, Version | None] = {}
        self._objects: dict[Any, str] = {}  # _id -> note id, of the notes changed since
        self._count = len(books)

    def copy(self) -> Versions:
        other = Versions(self.books)
        other.changed, other._objects = dict(self.changed), dict(self._objects)
        other._count = self._count
        return other

    def __len__(self) -> int:
        return self._count

    def holds(self, note_id: str) -> bool:
        if note_id in self.changed:
            return self.changed[note_id] is not None
        return self.books.position(note_id) >= 0

    def put(self, note_id: str, object_id: Any, stamp: tuple[Any, ...]) -> None:
        self.forget(note_id)
        self.changed[note_id] = (object_id, stamp)
        self._count += 1
        if object_id is not None:
            self._objects[object_id] = note_id

    def forget(self, note_id: str) -> None:
        """The note is gone (or about to be put again)."""
        if not self.holds(note_id):
            return
        version = self.changed.get(note_id)
        if version is not None and self._objects.get(version[0]) == note_id:
            del self._objects[version[0]]
        self.changed[note_id] = None
        self._count -= 1

    def key(self, note_id: str) -> int | None:
        """:func:`version_key` of what the index holds of the note; None: nothing."""
        return self.keys([note_id])[0]

    def keys(self, note_ids: Sequence[str]) -> list[int | None]:
        at = self.books.positions(note_ids)
        out: list[int | None] = []
        for note_id, p in zip(note_ids, at.tolist(), strict=True):
            if note_id in self.changed:
                version = self.changed[note_id]
                out.append(None if version is None else version_key(*version))
            else:
                out.append(None if p < 0 else int(self.books.versions[p]))
        return out

    def note_of_object(self, object_id: Any) -> str | None:
        """The note whose ``_id`` this is, if the index holds it."""
        note_id = self._objects.get(object_id)
        if note_id is not None:
            return note_id
        for candidate in self.books.with_object(object_id):
            if candidate not in self.changed:
                return candidate
        return None

    def note_ids(self) -> list[str]:
        """Every note held, sorted (the diff's windows, what vanished)."""
        base = [n.decode() for n in self.books.note_ids.tolist()]
        if not self.changed:
            return base
        live = {n for n, v in self.changed.items() if v is not None}
        return sorted({n for n in base if n not in self.changed} | live)

    def columns(self) -> tuple[list[str], list[int], list[int]]:
        """Every note held: ids, version keys and object keys (a new snapshot's books)."""
        keep = np.ones(len(self.books), dtype=bool)
        if self.changed:
            at = self.books.positions(list(self.changed))
            keep[at[at >= 0]] = False
        ids = [n.decode() for n in self.books.note_ids[keep].tolist()]
        versions = np.asarray(self.books.versions)[keep].tolist()
        objects = np.asarray(self.books.objects)[keep].tolist()
        for note_id, version in self.changed.items():
            if version is not None:
                ids.append(note_id)
                versions.append(version_key(*version))
                objects.append(object_key(version[0]))
        return ids, versions, objects

    def rebased(self, books: Books, since: Iterable[str]) -> Versions:
        """These versions over ``books`` (a fold's, built from a copy of them), keeping the
        notes changed ``since`` that copy as changes."""
        other = Versions(books)
        for note_id in since:
            if note_id not in self.changed:
                continue
            version = self.changed[note_id]
            if version is None:
                other.forget(note_id)
            else:
                other.put(note_id, *version)
        return other


def versions_of(pairs: dict[str, Version]) -> tuple[list[str], list[int], list[int]]:
    """Ids, version keys and object keys of a ``note_id -> (_id, stamp)`` dict."""
    ids = list(pairs)
    return (
        ids,
        [version_key(*pairs[n]) for n in ids],
        [object_key(pairs[n][0]) for n in ids],
    )
