"""The effective (decayed) importance of every note, kept up to date instead of recomputed
for every note on every request (issue 35: at 1M notes that recomputation, its rounding
and bucketing were 88% of an Overview request, and made the "effective importance >= x"
filter slow).

**Why it can be kept exact.** The contract's formula (``importance.decayed_importance``)
counts *whole days*: a note's value at time ``t`` depends on ``t`` only through
``(t - created) // day`` and ``(t - last_accessed) // day``. So each note's value is a
step function of time that changes only at its own next "anniversary" (the next whole
day since its creation or its last read). Each cached evaluation time keeps, per row,
the value and the instant it next may change; moving the time on recomputes only the rows
whose instant has passed (about ``2 n / 1440`` a minute: at 1M notes, some 1,400) plus
the rows the read model changed since (``ReadModel.put`` / ``forget`` mark them). The
answer is exactly the full recomputation's at that instant, to the microsecond, not
only to the minute. Moving the time back (a clock set back) recomputes everything.

The bucket counts of a histogram of the values (the Overview's effective-importance
pictures) are kept the same way: each row's bucket, and the counts over live rows,
adjusted for the rows recomputed. Several evaluation times are kept (now, and now plus
7, 30 and 90 days for the pictures): a request for ``t`` moves on the latest one at or
before ``t`` that is less than a day behind, or starts a new one.

Notes created per week back from now (``created_weeks``) are counted from the creation
instants sorted once (``searchsorted`` of the week edges) and corrected for the rows
changed since, instead of a pass over every note; the stored importance's histogram of
every section (``stored_histogram``) keeps each row's bucket and the counts, adjusted for
the rows changed since.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np


class ReadModel(Protocol):
    """What is read here of the read model (``read_model.ReadModel``, which holds one
    :class:`Effective` and so is not imported)."""

    size: int
    live: np.ndarray
    columns: dict[str, np.ndarray]


DAY_US = 86_400_000_000
NEVER = np.iinfo(np.int64).max
MISSING = np.iinfo(np.int64).min
KEEP = 5  # evaluation times kept (the pictures use four; about 19 bytes a note each)
FULL_AT = 0.25  # more than this share of the rows to recompute: recompute them all
RESORT_AT = 20_000  # rows changed since the creation instants were sorted: sort again


def round4(values: np.ndarray) -> np.ndarray:
    """``round(v, 4)`` of every value, as Python rounds (numpy's scaled rounding differs
    next to a tie, e.g. 0.48125): numpy's, then Python's for the values close to a tie."""
    out = np.round(values, 4)
    scaled = values * 1e4
    near_tie = np.flatnonzero(np.abs(scaled - np.floor(scaled) - 0.5) < 1e-6)
    for i in near_tie.tolist():
        out[i] = round(float(values[i]), 4)
    return out


def values_at(model: ReadModel, rows: np.ndarray, t_us: int) -> tuple[np.ndarray, np.ndarray]:
    """The effective importance of ``rows`` at ``t_us`` (the contract's formula over the
    columns, rounded as it is) and the instant each may next change."""
    c = model.columns
    created = c["created_us"][rows]
    accessed = c["accessed_us"][rows]
    stored = c["importance"][rows]
    importance = np.where(np.isnan(stored), 0.5, stored)
    bonus = np.minimum(0.5, c["access_count"][rows] * 0.05)
    rate = c["decay_rate"][rows]
    undated, unread = created == MISSING, accessed == MISSING
    # no creation date: created now, whatever now is (age 0, for ever)
    age = np.where(undated, 0, (t_us - np.where(undated, 0, created)) // DAY_US)
    idle = np.where(unread, age, (t_us - np.where(unread, 0, accessed)) // DAY_US)
    value = (importance - idle * rate + bonus) * (1.0 / (1 + age * 0.01))
    age_next = np.where(undated, NEVER, created + (age + 1) * DAY_US)
    idle_next = np.where(unread, age_next, accessed + (idle + 1) * DAY_US)
    return round4(np.clip(value, 0.0, 1.0)), np.minimum(age_next, idle_next)


class _At:
    """The values at one evaluation time, and the rows changed since."""

    def __init__(self, model: ReadModel, t_us: int) -> None:
        self.t_us = t_us
        n = model.size
        self.values, self.next_us = values_at(model, np.arange(n), t_us)
        self.dirty: set[int] = set()
        self.buckets: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # bins -> (per row, counts)
        self.counted = np.array(model.live[:n], dtype=bool)  # rows in the counts

    def move(self, model: ReadModel, t_us: int) -> None:
        """On to ``t_us`` (not before ``self.t_us``): the rows due and the rows changed."""
        n = model.size
        if n > len(self.values):  # rows added since: grown, computed below as dirty
            grow = n - len(self.values)
            self.dirty.update(range(len(self.values), n))
            self.values = np.concatenate([self.values, np.zeros(grow)])
            self.next_us = np.concatenate([self.next_us, np.zeros(grow, dtype=np.int64)])
            self.counted = np.concatenate([self.counted, np.zeros(grow, dtype=bool)])
            for bins, (per_row, counts) in list(self.buckets.items()):
                self.buckets[bins] = (np.concatenate([per_row, np.zeros(grow, np.int16)]), counts)
        due = np.flatnonzero(self.next_us[:n] <= t_us)
        if self.dirty:
            due = np.union1d(due, np.fromiter(self.dirty, dtype=np.int64, count=len(self.dirty)))
        self.dirty = set()
        self.t_us = t_us
        if not len(due):
            return
        self.values[due], self.next_us[due] = values_at(model, due, t_us)
        live = np.asarray(model.live[due], dtype=bool)
        for bins, (per_row, counts) in self.buckets.items():
            was = due[self.counted[due]]
            np.subtract.at(counts, per_row[was], 1)
            per_row[due] = bucket_of(self.values[due], bins)
            np.add.at(counts, per_row[due[live]], 1)
        self.counted[due] = live

    def counts(self, model: ReadModel, bins: int) -> list[int]:
        if bins not in self.buckets:
            n = model.size
            per_row = bucket_of(self.values[:n], bins)
            live = self.counted[:n]
            counts = np.bincount(per_row[live], minlength=bins).astype(np.int64)
            self.buckets[bins] = (per_row, counts)
        return [int(c) for c in self.buckets[bins][1]]


def bucket_of(values: np.ndarray, bins: int) -> np.ndarray:
    """Each value's bucket of ``np.histogram(np.clip(values, 0, 1), bins, (0, 1))``: the
    buckets are ``[e_i, e_i+1)``, the last closed."""
    edges = np.linspace(0, 1, bins + 1)
    which = np.searchsorted(edges, np.clip(values, 0, 1), side="right") - 1
    return np.minimum(which, bins - 1).astype(np.int16)  # bucket numbers


class Effective:
    """The read model's effective importance at the times asked, kept up to date."""

    def __init__(self) -> None:
        self._at: list[_At] = []
        self._weeks: _Created | None = None
        self._stored: dict[int, _Stored] = {}  # bins -> the stored importance's buckets

    def touch(self, row: int) -> None:
        """Row ``row`` of the read model changed (put or forgotten)."""
        for at in self._at:
            at.dirty.add(row)
        if self._weeks is not None:
            self._weeks.touch(row)
        for stored in self._stored.values():
            stored.dirty.add(row)

    def stored_histogram(self, model: ReadModel, bins: int) -> list[int]:
        """The live notes' stored importance in ``bins`` buckets (``ReadModel``'s
        ``importance_histogram`` of every section), kept up to date."""
        if bins not in self._stored:
            self._stored[bins] = _Stored(model, bins)
        return self._stored[bins].counts(model)

    def at(self, model: ReadModel, t_us: int) -> _At:
        behind = [a for a in self._at if a.t_us <= t_us and t_us - a.t_us < DAY_US]
        if behind:
            found = max(behind, key=lambda a: a.t_us)
            found.move(model, t_us)
            self._at.remove(found)
        else:
            found = _At(model, t_us)
        self._at = [found, *self._at][:KEEP]
        return found

    def values(self, model: ReadModel, t_us: int) -> np.ndarray:
        """Every row's effective importance at ``t_us`` (rows ``[0, size)``, dead ones
        included: mask them with ``live``)."""
        return self.at(model, t_us).values[: model.size]

    def histogram(self, model: ReadModel, t_us: int, bins: int) -> list[int]:
        """The live notes' effective importance at ``t_us`` in ``bins`` buckets over
        [0, 1] (as ``np.histogram`` of the clipped values)."""
        return self.at(model, t_us).counts(model, bins)

    def created_weeks(self, model: ReadModel, now_us: int, weeks: int) -> list[int]:
        if self._weeks is None:
            self._weeks = _Created(model)
        return self._weeks.weeks(model, now_us, weeks)


class _Created:
    """The live notes' creation instants, sorted, and the rows changed since."""

    def __init__(self, model: ReadModel) -> None:
        self.dirty: set[int] = set()
        self._build(model)

    def _build(self, model: ReadModel) -> None:
        n = model.size
        self.created = np.array(model.columns["created_us"][:n])
        self.created[~np.asarray(model.live[:n], dtype=bool)] = MISSING
        self.sorted = np.sort(self.created[self.created != MISSING])
        self.dirty = set()

    def touch(self, row: int) -> None:
        self.dirty.add(row)

    def weeks(self, model: ReadModel, now_us: int, weeks: int) -> list[int]:
        """Notes created in each of the last ``weeks`` weeks back from ``now_us``, oldest
        first: week ``k`` ago holds ``now - 7(k+1) days < created <= now - 7k days``, as
        ``(now - created) // day // 7 == k`` counts them."""
        if len(self.dirty) > RESORT_AT:
            self._build(model)
        edges = now_us - np.arange(weeks + 1, dtype=np.int64) * 7 * DAY_US

        # created in (edges[k+1], edges[k]]: searchsorted right of both edges
        def count(values: np.ndarray) -> np.ndarray:
            at = np.searchsorted(values, edges, side="right")
            return at[:-1] - at[1:]

        counts = count(self.sorted)
        if self.dirty:
            rows = np.fromiter(self.dirty, dtype=np.int64, count=len(self.dirty))
            rows = rows[rows < model.size]
            old = self.created[rows[rows < len(self.created)]]
            now = np.where(
                np.asarray(model.live[rows], dtype=bool), model.columns["created_us"][rows], MISSING
            )
            counts = (
                counts - count(np.sort(old[old != MISSING])) + count(np.sort(now[now != MISSING]))
            )
        return [int(c) for c in counts[::-1]]


def stored_buckets(values: np.ndarray, bins: int) -> np.ndarray:
    """Each stored importance's bucket as the database's ``$bucket`` puts it (bounds
    ``round(i / bins, 6)``, the last up to 1.000001), -1 for none (outside, not a number)."""
    bounds = np.asarray([round(i / bins, 6) for i in range(bins)] + [1.000001])
    which = np.searchsorted(bounds, values, side="right") - 1
    inside = (values >= 0) & (values < 1.000001)  # NaN: False
    return np.where(inside, which, -1).astype(np.int16)  # bucket numbers


class _Stored:
    """Every row's stored-importance bucket and the live rows' counts."""

    def __init__(self, model: ReadModel, bins: int) -> None:
        n = model.size
        self.bins = bins
        self.per_row = stored_buckets(np.asarray(model.columns["importance"][:n]), bins)
        self.counted = np.asarray(model.live[:n], dtype=bool) & (self.per_row >= 0)
        self.totals = np.bincount(self.per_row[self.counted], minlength=bins).astype(np.int64)
        self.dirty: set[int] = set()

    def counts(self, model: ReadModel) -> list[int]:
        n = model.size
        if n > len(self.per_row):
            grow = n - len(self.per_row)
            self.dirty.update(range(len(self.per_row), n))
            self.per_row = np.concatenate([self.per_row, np.full(grow, -1, np.int16)])
            self.counted = np.concatenate([self.counted, np.zeros(grow, dtype=bool)])
        if self.dirty:
            rows = np.fromiter(self.dirty, dtype=np.int64, count=len(self.dirty))
            self.dirty = set()
            np.subtract.at(self.totals, self.per_row[rows[self.counted[rows]]], 1)
            self.per_row[rows] = stored_buckets(model.columns["importance"][rows], self.bins)
            counted = np.asarray(model.live[rows], dtype=bool) & (self.per_row[rows] >= 0)
            self.counted[rows] = counted
            np.add.at(self.totals, self.per_row[rows[counted]], 1)
        return [int(c) for c in self.totals]
