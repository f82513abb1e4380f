"""The notes list answered from the read model (``replica/read_model.py``), as pure functions over
its numpy columns: a filter is a boolean mask, a sort is an int64 key per row, and a page
is the ``limit`` smallest ``(key, note_id)`` after the cursor, found by partitioning
(``np.partition``) rather than sorting every row.

The order is exactly the MongoDB query's (``listing.py``, ``paging.py``): ``(sort field,
note_id)``, both ascending or both descending, with what MongoDB sorts first ascending
(null or missing, then NaN, then numbers or dates) first. Keys: importance as its float
bits made order-preserving, dates as microseconds (``MISSING`` is the smallest int64),
access counts as themselves; a note id as 8-byte big-endian words of its UTF-8 bytes,
which compare as MongoDB compares strings (byte by byte). Descending flips every key
(``~``), so both directions are "the smallest after the cursor".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from memory_app.notes.lib.errors import InvalidQuery
from memory_app.notes.lib.listing import NoteFilter
from memory_app.notes.lib.replica.read_model import MISSING, NULL_BITS, ReadModel, _us

SORT_COLUMNS = {
    "importance": "importance",
    "created": "created_us",
    "updated": "updated_us",
    "last_accessed": "accessed_us",
    "access_count": "access_count",
}
LOWEST = np.iinfo(np.int64).min  # null or missing
NAN_KEY = LOWEST + 1  # a stored NaN: after null, before every number
_SIGN = np.int64(0x7FFF_FFFF_FFFF_FFFF)


def _float_keys(values: np.ndarray) -> np.ndarray:
    """int64 keys in the floats' order (-0.0 as 0.0; NaN left to the caller)."""
    bits = (np.asarray(values, dtype=np.float64) + 0.0).view(np.int64)
    return bits ^ ((bits >> 63) & _SIGN)


def filter_mask(model: ReadModel, flt: NoteFilter, now: datetime) -> np.ndarray:
    """The rows (of ``[0, model.size)``) matching every filter but the text, which
    ``text_candidates`` narrows and the documents confirm."""
    n = model.size
    c = {name: column[:n] for name, column in model.columns.items()}
    mask = model.live[:n].copy()

    def code_is(table: str, value: str) -> None:
        nonlocal mask
        mask &= c[table] == model._codes[table].get(value, -2)

    if flt.section is not None:
        code_is("section", flt.section)
    if any(v is not None for v in (flt.min_importance, flt.max_importance, flt.importance_below)):
        mask &= (model.nulls[:n] & NULL_BITS["importance"]) == 0
        if flt.min_importance is not None:
            mask &= c["importance"] >= float(flt.min_importance)
        if flt.max_importance is not None:
            mask &= c["importance"] <= float(flt.max_importance)
        if flt.importance_below is not None:
            mask &= c["importance"] < float(flt.importance_below)
    if flt.source_type is not None:
        code_is("source_type", flt.source_type)
    if flt.source_file:
        code_is("source_file", flt.source_file)
    if flt.no_source:
        mask &= c["source_type"] == -1  # read_model._code: no value, or an empty one
    accessed, created = c["accessed_us"], c["created_us"]
    if flt.created_after is not None:
        mask &= (created != MISSING) & (created > _us(flt.created_after))
    if flt.created_until is not None:
        mask &= (created != MISSING) & (created <= _us(flt.created_until))
    if flt.never_accessed:
        mask &= accessed == MISSING
    if flt.min_access is not None:  # a missing or null count matches no bound, as in MongoDB
        mask &= (model.nulls[:n] & NULL_BITS["access_count"]) == 0
        mask &= c["access_count"] >= int(flt.min_access)
    if flt.stale_days is not None:
        cutoff = _us(now - timedelta(days=flt.stale_days))
        read_before = (accessed != MISSING) & (accessed < cutoff)
        made_before = (accessed == MISSING) & (created != MISSING) & (created < cutoff)
        mask &= read_before | made_before
    if flt.no_embedding:
        mask &= c["dim"] == 0
    if flt.needs_decay:
        rows = np.flatnonzero(mask)
        values = np.full(n, np.nan)
        values[np.flatnonzero(model.live[:n])] = model.effective_importance(now)
        ok = np.ones(len(rows), dtype=bool)
        if flt.min_effective is not None:
            ok &= values[rows] >= float(flt.min_effective)
        if flt.max_effective is not None:
            ok &= values[rows] <= float(flt.max_effective)
        if flt.effective_below is not None:
            ok &= values[rows] < float(flt.effective_below)
        mask[rows[~ok]] = False
    return mask


def text_candidates(model: ReadModel, text: str) -> np.ndarray:
    """Rows that may contain ``text`` (``replica/words.py``); a text with no letter or digit
    cannot be looked up and is refused."""
    found = model.words.candidates(text, model.size)
    if found is None:
        raise InvalidQuery("text", "must contain at least one letter or digit")
    return found


def sort_keys(model: ReadModel, sort: str) -> np.ndarray:
    """Each row's int64 key for ``sort`` in MongoDB's ascending order."""
    n = model.size
    column = model.columns[SORT_COLUMNS[sort]][:n]
    if sort == "importance":
        keys = np.where(np.isnan(column), NAN_KEY, _float_keys(np.nan_to_num(column)))
        keys[(model.nulls[:n] & NULL_BITS["importance"]) != 0] = LOWEST
        return keys
    keys = column.astype(np.int64, copy=True)
    if sort == "access_count":
        keys[(model.nulls[:n] & NULL_BITS["access_count"]) != 0] = LOWEST
    return keys  # dates: MISSING is already the lowest int64


def cursor_key(sort: str, value: Any) -> int:
    """The key of a cursor's value (``listing.decode_cursor``); a value of another type
    than the sort field's is not a cursor of this list."""
    if value is None:
        return int(LOWEST)
    wrong = InvalidQuery("cursor", "is not a cursor of this sort")
    if sort in ("created", "updated", "last_accessed"):
        if not isinstance(value, datetime):
            raise wrong
        return _us(value)
    if isinstance(value, datetime | bool):
        raise wrong
    if sort == "importance":
        if math.isnan(value):
            return int(NAN_KEY)
        return int(_float_keys(np.asarray([float(value)]))[0])
    if isinstance(value, float) and not value.is_integer():
        raise wrong
    return int(value)


def cursor_value(model: ReadModel, sort: str, row: int) -> Any:
    """The stored value of ``row``'s sort field, as ``listing.encode_cursor`` takes it."""
    value = model.columns[SORT_COLUMNS[sort]][row]
    if sort == "importance":
        return None if model.nulls[row] & NULL_BITS["importance"] else float(value)
    if sort == "access_count":
        return None if model.nulls[row] & NULL_BITS["access_count"] else int(value)
    if int(value) == MISSING:
        return None
    return datetime(1970, 1, 1) + timedelta(microseconds=int(value))


@dataclass
class Order:
    """The list's order over the read model's rows: a primary key and the note id's
    8-byte words, every one flipped for a descending list."""

    primary: np.ndarray
    id_words: np.ndarray  # (rows, words) uint64, big-endian values
    descending: bool

    @classmethod
    def of(cls, model: ReadModel, sort: str, descending: bool) -> Order:
        n = model.size
        words = model.ids[:n].view(">u8").reshape(n, model.ids.dtype.itemsize // 8)
        return cls(sort_keys(model, sort), words, descending)

    @property
    def levels(self) -> int:
        return 1 + self.id_words.shape[1]

    def key(self, level: int, rows: np.ndarray) -> np.ndarray:
        if level == 0:
            values = self.primary[rows]
        else:
            values = self.id_words[rows, level - 1].astype(np.uint64)
        return ~values if self.descending else values

    def cursor(self, sort: str, value: Any, note_id: str) -> list[Any]:
        """The cursor's key at every level (an id longer than the rows' ids: see
        ``after``)."""
        width = self.id_words.shape[1] * 8
        raw = note_id.encode()
        padded = raw[:width].ljust(width, b"\0")
        words = np.frombuffer(padded, dtype=">u8").astype(np.uint64)
        keys: list[Any] = [np.int64(cursor_key(sort, value)), *words]
        if self.descending:
            keys = [~k for k in keys]
        return [*keys, len(raw) > width]

    def after(self, rows: np.ndarray, cursor: list[Any]) -> np.ndarray:
        """The rows strictly after the cursor, in no order."""
        *keys, longer = cursor
        out: list[np.ndarray] = []
        tie = rows
        for level, wanted in enumerate(keys):
            values = self.key(level, tie)
            out.append(tie[values > wanted])
            tie = tie[values == wanted]
            if not len(tie):
                break
        # Still tied: the row's id is the cursor's cut to the rows' width. A longer cursor
        # id comes after it ascending, before it descending.
        if len(tie) and longer and self.descending:
            out.append(tie)
        return np.concatenate(out) if out else rows[:0]

    def smallest(self, rows: np.ndarray, k: int, level: int = 0) -> np.ndarray:
        """The ``k`` smallest rows, in order."""
        chosen = self._smallest(rows, k, level)
        keys = [self.key(lv, chosen) for lv in range(self.levels)]
        return chosen[np.lexsort(keys[::-1])]

    def _smallest(self, rows: np.ndarray, k: int, level: int) -> np.ndarray:
        if k <= 0:
            return rows[:0]
        if len(rows) <= k or level >= self.levels:
            return rows[:k]
        values = self.key(level, rows)
        kth = np.partition(values, k - 1)[k - 1]
        below = rows[values < kth]
        tie = rows[values == kth]
        return np.concatenate([below, self._smallest(tie, k - len(below), level + 1)])


@dataclass
class RowsPage:
    """Rows of one page (``limit`` of them, one more when there is a next page) and how
    many matching rows come before it."""

    rows: np.ndarray
    before: int
    total: int


def page_rows(
    model: ReadModel,
    mask: np.ndarray,
    *,
    sort: str,
    descending: bool,
    position: tuple[Any, str] | None,
    take: int,
) -> RowsPage:
    """The first ``take`` rows of ``mask`` after ``position`` in the list's order."""
    order = Order.of(model, sort, descending)
    rows = np.flatnonzero(mask)
    after = rows if position is None else order.after(rows, order.cursor(sort, *position))
    return RowsPage(order.smallest(after, take), len(rows) - len(after), len(rows))
