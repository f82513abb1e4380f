"""The read model: the small fields the dashboard filters, sorts and aggregates on, one
numpy column each, so the Overview's pictures, the importance histogram and the decay
what-if are vectorised sums instead of a pass over every document.

Columns (about 60 bytes a note): importance, decay rate, access count, created / updated /
last accessed (int64 microseconds since the epoch, exact, so whole days are counted as
the agent counts them), section, source type and source file (codes into small tables)
and the embedding's dimension (0: none). For the notes list (``replica/query.py``): each
note's id as UTF-8 bytes (``ids``, width a multiple of 8, so ties are broken in MongoDB's
byte order by comparing 8-byte words), which sort fields are null or missing in the
document (``nulls``, bits ``NULL_BITS``: MongoDB sorts those first), and a word-prefix
index of the content (``replica/words.py``) for the text filter.

It is kept in step by the vector index (``replica/index.py``), which already sees every change
(the writer's notifications, the change stream, the id diff) and hands each re-read
document to :meth:`ReadModel.put` or its note id to :meth:`ReadModel.forget`; it is saved
beside the vector segments in each snapshot and opened copy-on-write memory-mapped
(``mmap_mode="c"``): processes share the pages until one of them changes a note.

Why numpy columns rather than Arrow/Parquet or DuckDB: the questions are a handful of
whole-column sums over at most a few million rows, which numpy answers in milliseconds
with no second engine in every process, and the columns must be updated in place note by
note, which Parquet files are not made for.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, MutableMapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from memory_app.notes.lib.constants import DEFAULT_DECAY_RATE, DEFAULT_IMPORTANCE
from memory_app.notes.lib.replica.effective import Effective, stored_buckets
from memory_app.notes.lib.replica.words import WordIndex

# The fields whose change the id diff looks for: the agent bumps access_count and
# last_accessed, and a decay pass writes importance, without touching updated_at.
STAMP_FIELDS = ("updated_at", "last_accessed", "access_count", "importance", "decay_rate")


def stamp(doc: Mapping[str, Any]) -> tuple[Any, ...]:
    """The fields of a note that say it changed (see ``STAMP_FIELDS``)."""
    return tuple(doc.get(f) for f in STAMP_FIELDS)


MISSING = np.iinfo(np.int64).min
DAY_US = 86_400_000_000
EPOCH = datetime(1970, 1, 1)
_FLOAT = ("importance", "decay_rate")
_INT = ("access_count", "created_us", "updated_us", "accessed_us", "dim")
_CODES = ("section", "source_type", "source_file")
# Bits of the ``nulls`` column: the sort fields a document holds no value in (null,
# missing, or not of the field's type), where the columns keep a stand-in.
NULL_BITS = {"importance": 1, "access_count": 2}
ID_WIDTH = 40  # bytes; widened (by 8) when a longer note id arrives


def _us(value: Any) -> int:
    if not isinstance(value, datetime):
        return int(MISSING)
    if value.tzinfo is not None:
        value = value.astimezone(UTC).replace(tzinfo=None)
    delta = value - EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


class NoteRows(MutableMapping[str, int]):
    """Note id -> row of a read model opened from a snapshot: the saved ids (``note_ids``,
    in row order, "" for a free row) with the order that sorts them, both memory-mapped
    (a lookup is one ``searchsorted``), plus the notes put and forgotten since. At 1M notes
    the dict this replaces took about 1 s and 150 MB in every process that opened it."""

    def __init__(self, ids: np.ndarray, order: np.ndarray, count: int) -> None:
        self._ids, self._order, self._count = ids, order, count
        self._new: dict[str, int] = {}
        self._gone: set[str] = set()

    def copy(self) -> NoteRows:
        other = NoteRows(self._ids, self._order, self._count)
        other._new, other._gone = dict(self._new), set(self._gone)
        return other

    def _saved(self, note_id: str) -> int | None:
        if not note_id or not len(self._order):
            return None
        at = int(np.searchsorted(self._ids, note_id, sorter=self._order))
        if at == len(self._order):
            return None
        row = int(self._order[at])
        return row if self._ids[row] == note_id else None

    def __getitem__(self, note_id: str) -> int:
        row = self._new.get(note_id)
        if row is None and note_id not in self._gone:
            row = self._saved(note_id)
        if row is None:
            raise KeyError(note_id)
        return row

    def __setitem__(self, note_id: str, row: int) -> None:
        if note_id not in self:
            self._count += 1
        self._new[note_id] = row
        self._gone.discard(note_id)

    def __delitem__(self, note_id: str) -> None:
        if note_id not in self:
            raise KeyError(note_id)
        self._new.pop(note_id, None)
        if self._saved(note_id) is not None:
            self._gone.add(note_id)
        self._count -= 1

    def __iter__(self) -> Iterator[str]:
        return (note_id for note_id, _ in self.pairs())

    def __len__(self) -> int:
        return self._count

    def pairs(self) -> Iterator[tuple[str, int]]:
        """Every ``(note_id, row)``, without a lookup per note (a save at 1M notes)."""
        for row, note_id in enumerate(self._ids.tolist()):
            if note_id and note_id not in self._gone and note_id not in self._new:
                yield note_id, row
        yield from list(self._new.items())


class ReadModel:
    def __init__(self) -> None:
        self.rows: MutableMapping[str, int] = {}
        self.free: list[int] = []
        self.size = 0
        self.live = np.zeros(0, dtype=bool)
        self.columns: dict[str, np.ndarray] = {}
        self.tables: dict[str, list[str]] = {name: [] for name in _CODES}
        self._codes: dict[str, dict[str, int]] = {name: {} for name in _CODES}
        self.ids = np.zeros(0, dtype=f"S{ID_WIDTH}")
        self.nulls = np.zeros(0, dtype=np.int8)
        self.words = WordIndex()
        self.effective = Effective()  # the decayed importance, kept up to date
        self._grow(1024)

    def _grow(self, capacity: int) -> None:
        old = len(self.live)
        self.live = np.concatenate([self.live, np.zeros(capacity - old, dtype=bool)])
        fresh = {
            **{n: np.full(capacity - old, np.nan) for n in _FLOAT},
            **{n: np.zeros(capacity - old, dtype=np.int64) for n in _INT},
            **{n: np.full(capacity - old, -1, dtype=np.int32) for n in _CODES},
        }
        for name, tail in fresh.items():
            head = self.columns.get(name)
            self.columns[name] = tail if head is None else np.concatenate([head, tail])
        self.ids = np.concatenate([self.ids, np.zeros(capacity - old, dtype=self.ids.dtype)])
        self.nulls = np.concatenate([self.nulls, np.zeros(capacity - old, dtype=np.int8)])
        self.words.grow(capacity)

    def _code(self, table: str, value: Any) -> int:
        if value is None or value == "":
            return -1
        key = str(value)
        code = self._codes[table].get(key)
        if code is None:
            code = self._codes[table][key] = len(self.tables[table])
            self.tables[table].append(key)
        return code

    def put(self, doc: Mapping[str, Any]) -> None:
        """Record (or replace) one note from its document."""
        note_id = str(doc["note_id"])
        row = self.rows.get(note_id)
        if row is None:
            if self.free:
                row = self.free.pop()
            else:
                if self.size == len(self.live):
                    self._grow(2 * len(self.live))
                row, self.size = self.size, self.size + 1
            self.rows[note_id] = row
        c = self.columns
        importance = doc.get("importance", DEFAULT_IMPORTANCE)
        number = isinstance(importance, int | float) and not isinstance(importance, bool)
        c["importance"][row] = float(importance) if number else np.nan
        c["decay_rate"][row] = float(doc.get("decay_rate") or DEFAULT_DECAY_RATE)
        c["access_count"][row] = int(doc.get("access_count") or 0)
        c["created_us"][row] = _us(doc.get("created_at"))
        c["updated_us"][row] = _us(doc.get("updated_at"))
        c["accessed_us"][row] = _us(doc.get("last_accessed"))
        vector = doc.get("embedding")
        c["dim"][row] = len(vector) if isinstance(vector, list | np.ndarray) else 0
        raw = doc.get("source")
        source: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
        c["section"][row] = self._code("section", doc.get("section"))
        c["source_type"][row] = self._code("source_type", source.get("source_type"))
        c["source_file"][row] = self._code("source_file", source.get("file_path"))
        count = doc.get("access_count")
        stored = doc.get("importance")
        has_number = isinstance(stored, int | float) and not isinstance(stored, bool)
        self.nulls[row] = (NULL_BITS["importance"] if not has_number else 0) | (
            NULL_BITS["access_count"]
            if isinstance(count, bool) or not isinstance(count, int | float)
            else 0
        )
        encoded = note_id.encode()
        if len(encoded) > self.ids.dtype.itemsize:
            self.ids = self.ids.astype(f"S{-(-len(encoded) // 8) * 8}")
        self.ids[row] = encoded
        if "content" in doc:
            self.words.put(row, doc.get("content"))
        self.live[row] = True
        self.effective.touch(row)

    def forget(self, note_id: str) -> None:
        row = self.rows.pop(note_id, None)
        if row is not None:
            self.live[row] = False
            self.ids[row] = b""
            self.words.forget(row)
            self.free.append(row)
            self.effective.touch(row)

    def __len__(self) -> int:
        return len(self.rows)

    def copy(self) -> ReadModel:
        other = ReadModel.__new__(ReadModel)
        rows = self.rows.copy() if isinstance(self.rows, NoteRows) else dict(self.rows)
        other.rows, other.free, other.size = rows, list(self.free), self.size
        other.live = self.live.copy()
        other.columns = {n: a.copy() for n, a in self.columns.items()}
        other.ids, other.nulls, other.words = self.ids.copy(), self.nulls.copy(), self.words.copy()
        other.tables = {n: list(t) for n, t in self.tables.items()}
        other._codes = {n: dict(t) for n, t in self._codes.items()}
        other.effective = Effective()
        return other

    # --- persistence ------------------------------------------------------------------------

    def save(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        n = self.size
        np.save(directory / "live.npy", self.live[:n])
        for name, column in self.columns.items():
            np.save(directory / f"{name}.npy", column[:n])
        ids = [""] * n
        pairs = self.rows.pairs() if isinstance(self.rows, NoteRows) else self.rows.items()
        for note_id, row in pairs:
            ids[row] = note_id
        saved_ids = np.asarray(ids, dtype=str)
        np.save(directory / "note_ids.npy", saved_ids)
        np.save(directory / "note_order.npy", np.argsort(saved_ids, kind="stable"))
        np.save(directory / "id_bytes.npy", self.ids[:n])
        np.save(directory / "nulls.npy", self.nulls[:n])
        self.words.save(directory, n)
        (directory / "tables.json").write_text(json.dumps(self.tables))

    @classmethod
    def open(cls, directory: Path) -> ReadModel:
        """Copy-on-write memory-mapped: pages stay shared until this process writes one."""
        model = cls.__new__(cls)
        model.live = np.load(directory / "live.npy", mmap_mode="c")
        model.size = len(model.live)
        names = (*_FLOAT, *_INT, *_CODES)
        model.columns = {n: np.load(directory / f"{n}.npy", mmap_mode="c") for n in names}
        ids = np.load(directory / "note_ids.npy", mmap_mode="r")
        try:
            order = np.load(directory / "note_order.npy", mmap_mode="r")
        except FileNotFoundError:  # saved before the order was: sorted once here
            order = np.argsort(ids, kind="stable")
        live = np.asarray(model.live, dtype=bool)
        model.rows = NoteRows(ids, order, int(live.sum()))
        model.free = np.flatnonzero(~live).tolist()
        model.tables = json.loads((directory / "tables.json").read_text())
        model._codes = {n: {v: i for i, v in enumerate(t)} for n, t in model.tables.items()}
        model.ids = np.load(directory / "id_bytes.npy", mmap_mode="c")
        model.nulls = np.load(directory / "nulls.npy", mmap_mode="c")
        model.words = WordIndex.open(directory, model.size)
        model.effective = Effective()
        if model.size == 0:
            model._grow(1024)
        return model

    # --- questions ----------------------------------------------------------------------------

    def _mask(self, section: str | None = None) -> np.ndarray:
        mask = self.live[: self.size].copy()
        if section is not None:
            code = self._codes["section"].get(section, -2)
            mask &= self.columns["section"][: self.size] == code
        return mask

    def importance_histogram(self, bins: int = 10, section: str | None = None) -> list[int]:
        """Stored importance in ``bins`` buckets over [0, 1] (the database's ``$bucket``:
        a number outside [0, 1] or not a number is in no bucket); of every section kept up
        to date (``replica/effective.py``), of one section counted now."""
        bins = max(1, min(int(bins), 100))
        if section is None:
            return self.effective.stored_histogram(self, bins)
        values = self.columns["importance"][: self.size][self._mask(section)]
        which = stored_buckets(values, bins)
        return [int(c) for c in np.bincount(which[which >= 0], minlength=bins)[:bins]]

    def effective_importance(self, now: datetime, section: str | None = None) -> np.ndarray:
        """The decayed importance of every live note at ``now``: the contract's formula
        (``importance.decayed_importance``) over whole columns, rounded as it is."""
        return self.effective_importance_at([now], section)[0]

    def effective_importance_at(
        self, nows: list[datetime], section: str | None = None
    ) -> list[np.ndarray]:
        """:meth:`effective_importance` at each of ``nows``, of the live notes (of
        ``section``), kept up to date between calls (``replica/effective.py``): only the
        notes changed since, or whose whole days since creation or last read ticked
        over, are computed again."""
        mask = self._mask(section)
        return [self.effective.values(self, _us(now))[mask] for now in nows]

    def effective_histogram(self, now: datetime, bins: int = 10) -> list[int]:
        """The live notes' effective importance at ``now`` in ``bins`` buckets over
        [0, 1] (``np.histogram`` of the clipped values), kept up to date."""
        return self.effective.histogram(self, _us(now), bins)

    def created_per_week(self, now: datetime, weeks: int) -> list[int]:
        """Live notes created in each of the last ``weeks`` weeks back from ``now``,
        oldest first (a note with no creation date, or created after ``now``, is in
        none)."""
        return self.effective.created_weeks(self, _us(now), weeks)
