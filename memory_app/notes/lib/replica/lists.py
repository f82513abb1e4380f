"""The notes list and its count, answered from the read model: the vector index's follower
keeps the columns in step with MongoDB (``replica/index.py``), ``replica/query.py`` picks the
page's rows with numpy, and MongoDB then serves only those documents, by id.

- Same answers as the MongoDB query (``mongo/paging.py``, kept as the reference and the
  small-collection fallback): every filter, sort and direction, keyset cursors in the
  same format (a link from before keeps working), ties by note id. The effective
  importance filter is exact here (the query scans at most 5,000 notes per page).
- The text filter: a note matches when its content contains the text as typed, ignoring
  case, starting at the beginning of a word (not after a letter, digit or ``_``):
  "lumen" finds "Lumens" and "the LUMEN", not "illumen"; "the lum" finds "the lumen".
  The word-prefix index (``replica/words.py``) gives the candidates; unless the text is a
  single word (which the index answers exactly), each candidate is confirmed on its
  fetched document with an escaped, case-insensitive regular expression. A text without
  a letter or digit is refused (400). The MongoDB query (``listing.build_query``, the
  fallback) asks the same with ``(^|\\W)`` before the escaped text.
- Fresh: qqweb's own writes are re-read by the index before the write returns; a write
  made straight to MongoDB (the agent) appears once the follower has seen it (about a
  second). A document deleted since is skipped.
- While the read model is still loading (a process that just started with no snapshot),
  a collection of at most ``SMALL_COLLECTION`` notes is listed by the MongoDB query;
  a larger one answers :class:`ListLoading` at once ("loading, N of M notes"; M the
  count the load began with, so a request asks the server nothing meanwhile). Nothing
  here waits for the index.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any, Protocol

from memory_app.notes.lib.documents import effective_importance
from memory_app.notes.lib.domain import Note
from memory_app.notes.lib.listing import (
    MAX_PAGE,
    NoteFilter,
    NotesCount,
    NotesPage,
    check_sort,
    decode_cursor,
    encode_cursor,
)
from memory_app.notes.lib.replica.query import (
    cursor_value,
    filter_mask,
    page_rows,
    text_candidates,
)
from memory_app.notes.lib.replica.read_model import ReadModel
from memory_app.notes.lib.replica.words import WORD, WORD_BYTES
from qqweb.lib.errors import StoreUnavailable

SMALL_COLLECTION = 5_000  # listed by the MongoDB query while the read model loads
CONFIRM_COUNT_AT_MOST = 2_000  # candidates fetched to count a text of several words
CONFIRM_PER_PAGE = 5_000  # candidates read for one page of a text of several words


class ListLoading(StoreUnavailable):
    """The read model is still loading and the collection is too large to list without it."""

    def __init__(self, loaded: int, total: int) -> None:
        super().__init__(
            "the notes list",
            f"it is loading ({loaded:,} of {total:,} notes); try again in a few seconds",
        )
        self.loaded, self.total = loaded, total

    def __reduce__(self) -> tuple[type, tuple[int, int]]:  # type: ignore[override]
        return type(self), (self.loaded, self.total)


class ListSource(Protocol):
    """What the list needs of the notes store."""

    vector_index: Any

    def list_notes(
        self,
        flt: NoteFilter | None = None,
        *,
        sort: str = ...,
        direction: str = ...,
        cursor: str | None = ...,
        limit: int = ...,
    ) -> NotesPage: ...

    def count_notes(self, flt: NoteFilter | None = None) -> NotesCount: ...

    def notes_by_ids(self, note_ids: Any) -> dict[str, Note]: ...


def text_pattern(text: str) -> re.Pattern[str]:
    """The confirmation of the text filter: ``text`` at the beginning of a word (or after
    any character that is not a letter, digit or ``_``), ignoring case, as typed."""
    return re.compile(r"(?<!\w)" + re.escape(text), re.IGNORECASE)


def exact_word(text: str) -> bool:
    """A text the word index answers exactly, with no document to confirm: one word."""
    words = WORD.findall(text)
    return len(words) == 1 and words[0] == text and len(text.lower().encode()) <= WORD_BYTES


@contextmanager
def _model(store: ListSource) -> Iterator[ReadModel | None]:
    """The read model held still, or None while it loads and the collection is small
    (the MongoDB query answers then)."""
    index = store.vector_index
    index.start()
    if not index.ready:
        counted = index.counted  # the load's count: a count asks the server to scan
        total = counted if counted is not None else store.count_notes(NoteFilter()).value or 0
        if total <= SMALL_COLLECTION:
            yield None
            return
        # read so far: without a snapshot, the notes read; with one, what it held
        raise ListLoading(max(index.loaded_rows, len(index.read_model)), total)
    with index.reading() as model:
        yield model


def _matching(model: ReadModel, flt: NoteFilter, now: datetime) -> Any:
    mask = filter_mask(model, flt, now)
    if flt.text:
        mask &= text_candidates(model, flt.text)
    return mask


def list_page(
    store: ListSource,
    flt: NoteFilter,
    *,
    sort: str,
    direction: str,
    cursor: str | None,
    limit: int,
    now: datetime,
) -> NotesPage:
    """One page of the list after ``cursor``; ``offset`` and ``total`` say where it is
    (None where only the documents could say: a text of several words). For such a text
    at most ``CONFIRM_PER_PAGE`` candidates are read per page: a page can then be short,
    its cursor marking where reading stopped (as the query path did for effective
    importance)."""
    check_sort(sort, direction)
    limit = max(1, min(int(limit), MAX_PAGE))
    position = decode_cursor(cursor) if cursor else None
    with _model(store) as model:
        if model is None:
            return store.list_notes(flt, sort=sort, direction=direction, cursor=cursor, limit=limit)
        mask = _matching(model, flt, now)
        exact = not flt.text or exact_word(flt.text)
        take = limit + 1 if exact else max(4 * limit, 200)
        chosen = page_rows(
            model, mask, sort=sort, descending=direction == "desc", position=position, take=take
        )
        ids = [model.ids[r].decode() for r in chosen.rows.tolist()]
        keys = [cursor_value(model, sort, r) for r in chosen.rows.tolist()]
    pattern = None if exact else text_pattern(flt.text or "")
    items: list[Note] = []
    last: tuple[Any, str] | None = None
    more = False
    read = 0
    while True:
        docs = store.notes_by_ids(ids)
        for note_id, key in zip(ids, keys, strict=True):
            note = docs.get(note_id)
            if note is None or (pattern and not pattern.search(note.content)):
                last = (key, note_id)
                continue
            if len(items) == limit:
                more = True
                break
            items.append(
                note.annotated(effective_importance=effective_importance(note.to_document(), now))
            )
            last = (key, note_id)
        read += len(ids)
        if more or len(ids) < take or last is None:
            break
        if read >= CONFIRM_PER_PAGE:  # a short page; the cursor marks where reading stopped
            more = True
            break
        # every candidate of this batch was read: the next batch starts after the last
        with _model(store) as model:
            if model is None:  # reloading: what was read stands
                break
            batch = page_rows(
                model,
                _matching(model, flt, now),  # afresh: the rows may have moved since
                sort=sort,
                descending=direction == "desc",
                position=last,
                take=take,
            )
            ids = [model.ids[r].decode() for r in batch.rows.tolist()]
            keys = [cursor_value(model, sort, r) for r in batch.rows.tolist()]
    next_cursor = encode_cursor(*last) if more and last is not None else None
    if exact:
        return NotesPage(items, next_cursor, offset=chosen.before, total=chosen.total)
    return NotesPage(items, next_cursor)


def count(store: ListSource, flt: NoteFilter, *, now: datetime) -> NotesCount:
    """How many notes the list holds, exactly (None for a text of several words matching
    more than ``CONFIRM_COUNT_AT_MOST`` candidates: only their documents could say)."""
    with _model(store) as model:
        if model is None:
            return store.count_notes(flt)
        mask = _matching(model, flt, now)
        candidates = int(mask.sum())
        if not flt.text or exact_word(flt.text) or candidates > CONFIRM_COUNT_AT_MOST:
            return NotesCount(None if flt.text and not exact_word(flt.text) else candidates)
        ids = [model.ids[r].decode() for r in mask.nonzero()[0].tolist()]
    pattern = text_pattern(flt.text)
    docs = store.notes_by_ids(ids)
    return NotesCount(sum(1 for note in docs.values() if pattern.search(note.content)))
