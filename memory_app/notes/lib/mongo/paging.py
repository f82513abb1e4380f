"""Reading the notes list from MongoDB: one page in ``(sort field, note_id)`` order,
through bounded index ranges. The filters, sorts and cursors are the pure functions of
``memory_app.notes.lib.listing``; this module is the part that speaks to the collection."""

from __future__ import annotations

import math
import time
from datetime import datetime, timedelta
from typing import Any

from memory_app.notes.lib.documents import effective_importance
from memory_app.notes.lib.domain import Note
from memory_app.notes.lib.listing import (
    LIST_FIELDS,
    MAX_PAGE,
    NoteFilter,
    NotesPage,
    build_query,
    check_sort,
    decode_cursor,
    encode_cursor,
)


def page_notes(
    collection: Any,
    flt: NoteFilter,
    *,
    sort: str,
    direction: str,
    cursor: str | None,
    limit: int,
    now: datetime,
    max_scan: int,
) -> NotesPage:
    """One page in ``(sort field, note_id)`` order after ``cursor``. Filters on the
    effective (decayed) importance are applied while reading, scanning at most
    ``max_scan`` documents; the cursor then marks where the scan stopped. Driver errors
    pass through to the store, which re-raises them as its own."""
    field, order = check_sort(sort, direction)
    limit = max(1, min(int(limit), MAX_PAGE))
    position = decode_cursor(cursor) if cursor else None
    chunk = limit + 1 if not flt.needs_decay else min(max_scan, max(limit * 4, 100)) + 1
    reader = WindowedReader(collection, build_query(flt, now), field, order, chunk)
    items: list[Note] = []
    scanned = 0
    last: dict[str, Any] | None = None
    for doc in reader.after(position):
        if last is not None and (len(items) == limit or scanned >= max_scan):
            # there is more: the next page starts after the last one read
            return NotesPage(items, encode_cursor(last.get(field), last["note_id"]), scanned)
        scanned += 1
        last = doc
        value = effective_importance(doc, now)
        if flt.effective_matches(value):
            items.append(Note.from_document(doc).annotated(effective_importance=value))
    return NotesPage(items, None, scanned)


_bounds_cache: dict[tuple[str, str], tuple[float, Any, Any]] = {}
BOUNDS_TTL_S = 60.0
MAX_WINDOWS = 40


def field_bounds(collection: Any, field: str) -> tuple[Any, Any]:
    """(min, max) of a field's non-null values, cached per process for a minute. Only
    used to know where to stop widening windows, never to filter: a value outside a
    stale bound is still found."""
    key = (collection.full_name, field)
    cached = _bounds_cache.get(key)
    if cached and time.monotonic() - cached[0] < BOUNDS_TTL_S:
        return cached[1], cached[2]
    present = {field: {"$ne": None}}
    low = collection.find_one(present, {field: 1}, sort=[(field, 1)])
    high = collection.find_one(present, {field: 1}, sort=[(field, -1)])
    bounds = (low.get(field) if low else None, high.get(field) if high else None)
    _bounds_cache[key] = (time.monotonic(), *bounds)
    return bounds


def _first_step(value: Any) -> Any:
    if isinstance(value, datetime):
        return timedelta(hours=1)
    if isinstance(value, int) and not isinstance(value, bool):
        return 1
    return 0.001


def _next_bound(edge: Any, step: Any, desc: bool) -> Any:
    """The far end of the next window, or None when there is none to compute: a date
    before year 1 or after 9999, an integer past 64 bits, or a float that is not finite."""
    try:
        bound = edge - step if desc else edge + step
    except (OverflowError, TypeError):
        return None
    if isinstance(bound, float) and not math.isfinite(bound):
        return None
    if isinstance(bound, int) and not -(2**63) <= bound < 2**63:
        return None
    return bound


def _grown(step: Any) -> Any:
    try:
        return step * 4
    except OverflowError:  # a timedelta past a billion days
        return None


class WindowedReader:
    """Yields the documents matching ``base`` in ``(field, note_id)`` order, reading one
    bounded index range at a time: a window next to the current position that grows 4x
    each time it comes back short. A server that evaluates a whole index range before
    applying the limit (SecantusDB does) then reads about one page of documents per page,
    at any depth; on MongoDB it costs a few extra index seeks."""

    def __init__(
        self, collection: Any, base: dict[str, Any], field: str, order: int, chunk: int
    ) -> None:
        self.collection = collection
        self.base = base
        self.field = field
        self.order = order
        self.chunk = chunk

    def _fetch(self, condition: dict[str, Any], by_id_only: bool = False) -> list[dict[str, Any]]:
        query = {"$and": [self.base, condition]} if self.base else condition
        sort = (
            [("note_id", self.order)]
            if by_id_only
            else [(self.field, self.order), ("note_id", self.order)]
        )
        return list(self.collection.find(query, LIST_FIELDS).sort(sort).limit(self.chunk))

    def _drain(self, condition: dict[str, Any], by_id_only: bool = False) -> Any:
        """Everything matching ``condition``, in chunks, keyset inside it. Each chunk
        must end past the one before (note ids are unique); one that does not (a value the
        server compares oddly, such as a stored NaN) ends the walk instead of repeating it."""
        after: dict[str, Any] | None = None
        previous_last: str | None = None
        while True:
            docs = self._fetch({"$and": [condition, after]} if after else condition, by_id_only)
            if docs and docs[-1]["note_id"] == previous_last:
                return
            yield from docs
            if len(docs) < self.chunk:
                return
            last = docs[-1]
            previous_last = last["note_id"]
            after = (
                {"note_id": {"$gt" if self.order == 1 else "$lt": last["note_id"]}}
                if by_id_only
                else self._beyond(last.get(self.field), last["note_id"])
            )

    def _beyond(self, value: Any, note_id: str) -> dict[str, Any]:
        op = "$gt" if self.order == 1 else "$lt"
        return {"$or": [{self.field: {op: value}}, {self.field: value, "note_id": {op: note_id}}]}

    def after(self, position: tuple[Any, str] | None) -> Any:
        f, desc = self.field, self.order == -1
        nulls = {f: None}
        if position is not None and position[0] is None:  # inside the nulls
            yield from self._drain(
                {**nulls, "note_id": {"$lt" if desc else "$gt": position[1]}}, by_id_only=True
            )
            if desc:
                return
            position = None  # ascending: the values come after the nulls
        elif position is None and not desc:
            yield from self._drain(nulls, by_id_only=True)  # ascending starts with the nulls
        low, high = field_bounds(self.collection, f)
        if low is None:  # no values at all
            if desc:
                yield from self._drain(nulls, by_id_only=True)
            return
        edge = position[0] if position is not None else (high if desc else low)
        step = _first_step(edge)
        # Ties with the cursor's own value come first; then ranges next to it, each one
        # condition on the field alone so the server reads one index range.
        tie = (
            {f: position[0], "note_id": {"$lt" if desc else "$gt": position[1]}}
            if position is not None
            else None
        )
        upper = position[0] if position is not None else None
        for _ in range(MAX_WINDOWS):  # 4**40 steps: past any range a field can span
            bound = _next_bound(edge, step, desc)
            if bound is None:  # past year 1 or 9999, 64 bits, or NaN: read the rest at once
                break
            span: dict[str, Any] = {"$gte": bound} if desc else {"$lte": bound}
            if upper is not None:
                span["$lt" if desc else "$gt"] = upper
            condition: dict[str, Any] = {f: span}
            if tie is not None:
                condition, tie = {"$or": [tie, condition]}, None
            yield from self._drain(condition)
            upper = bound
            try:
                if (desc and bound < low) or (not desc and bound > high):
                    break
            except TypeError:  # the agent stored values of mixed types: read the rest at once
                break
            edge, step = bound, _grown(step)
            if step is None:
                break
        if tie is not None:  # the loop ended before its first window
            yield from self._drain(tie)
        nans_left = False
        if upper is None:
            upper_done: dict[str, Any] = {f: {"$ne": None}}
        elif desc and upper == upper:
            # NaN sorts below every number but no range holds it: it comes apart, last
            upper_done, nans_left = {f: {"$lt": upper, "$ne": math.nan}}, True
        else:
            upper_done = {f: {"$lt": upper}} if desc else {f: {"$gt": upper}}
        if desc:  # what is left: values below a stale minimum, NaN, then the nulls
            yield from self._drain(upper_done)
            if nans_left:
                yield from self._drain({f: math.nan})
            yield from self._drain(nulls, by_id_only=True)
        else:
            yield from self._drain(upper_done)
