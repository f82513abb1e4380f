"""The vector index over the notes' embeddings, kept in step with MongoDB off the request
path.

The agent keeps embeddings as lists in the documents and has no vector index; reading
every document per query costs seconds at 100k notes. This index answers from
memory-mapped segments saved under ``var/`` (``segments.py``: an exact scan below
``exact_below`` notes, an inverted file of exactly scanned lists above) plus a small
in-memory delta of the notes changed since the segments were built:

- a process opens the last saved segments (milliseconds, memory-mapped, shared with every
  other process on the machine), answers from them at once (:attr:`VectorIndex.ready`),
  and only then catches up by diffing ``(_id, note_id, updated_at)`` with what the
  snapshot held (30 s at 100k notes on the embedded daemon): a note the agent wrote while
  no qqweb process ran appears once that catch-up ends (:attr:`VectorIndex.caught_up`).
  The notes qqweb itself wrote meanwhile are read before the first answer. Without a
  snapshot it reads every vector once, in queries of at most ``load_batch`` embeddings
  (``follow.every_vector``), and saves one. This happens in background threads
  that web and worker processes start when they start (``memory_app.notes.stores``); a search
  that comes before the index is ready waits at most ``ready_timeout`` seconds, then gets
  :class:`IndexWarming` ("the search index is loading (N of M notes)", a 503) instead of
  hanging;
- every write qqweb makes goes through the store, which tells the index the ids it wrote
  (:meth:`VectorIndex.notes_changed`): the writer re-reads exactly those notes into the
  delta, so a search right after sees them (an undo included, whatever its
  ``updated_at``);
- writes by the agent and by the other qqweb processes arrive through a change stream
  where the server has one (SecantusDB and replica sets do): a background thread collects
  the ``_id`` of every changed document and wakes the follower thread, which re-reads
  them: a note one process writes is searchable in the others as soon as their stream
  delivers it plus one read by ``_id`` (the bound: ``follow.py``);
- where there is no change stream, the follower diffs ids every ``refresh_interval``
  seconds (never more often than five times as long as the last diff took). No time
  watermark is trusted.
- when the delta passes ``fold_at`` notes (or 2% of the segment) the follower builds new
  segments from the old ones and the delta, saves them and swaps them in; searches go on
  against the old ones meanwhile.

A search never refreshes anything: it reads the segments and the delta under a lock held
for the few milliseconds of the scan. A "rebuild" bumps a generation number in a small
``qqweb_meta`` collection beside the notes (the agent never reads it); every process's
follower sees the new number within ``refresh_interval`` and reads everything again.

A query is only compared with vectors of its own dimension; the others are counted and
reported (the agent silently truncates; we refuse). Where the server offers
``$vectorSearch`` (Atlas, MongoDB 8.2+ with mongot) and an index name is configured, it is
used instead, falling back to this index when the server refuses.

The index speaks to MongoDB only through the store's named methods (:class:`VectorSource`).
Its questions (``holds``, ``dimensions``, ``search``, ``search_notes``, every vector for
the full dedup scan: ``rows_by_dimension``) are answered in ``search.py``, the
change stream, the diff and the fold run in ``follow.py``; this module keeps its
state, its threads and the catch-up.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

import numpy as np

from memory_app.notes.lib.replica import follow as vector_follow
from memory_app.notes.lib.replica import search as vector_search
from memory_app.notes.lib.replica import shared_diff
from memory_app.notes.lib.replica.core import IndexCore, IndexWarming, VectorSource
from memory_app.notes.lib.replica.follow import (
    changed_ids,
    diff,
    fold,
    follow,
    needs_fold,
    record_diff,
)
from memory_app.notes.lib.replica.search import SearchResult
from memory_app.notes.lib.replica.state import build_snapshot, load_snapshot
from qqweb.lib.errors import StoreUnavailable

log = logging.getLogger(__name__)

T = TypeVar("T")

__all__ = ["IndexWarming", "SearchResult", "VectorIndex", "VectorSource"]


class VectorIndex(IndexCore):
    # --- life ------------------------------------------------------------------------------

    def in_step(self, timeout: float) -> bool:
        """Wait until the index holds every write MongoDB acknowledged before this call
        (a job that must count exactly what MongoDB holds; the follower alone may be a
        second or, diffing ids, a few behind); whether it got there within ``timeout``
        seconds. Following a change stream: once a poll of the stream asked after this
        call answered that nothing more is there, the notes it named are read now;
        diffing (or the stream stopped while waiting): the ids are diffed now."""
        deadline = time.monotonic() + timeout
        if not self.wait_caught_up(timeout):
            return False
        if self._source is None:
            return True
        asked = time.monotonic()
        while self.follows_change_stream:  # a stream that stops meanwhile: diff instead
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            with self._drained:
                drained = self._drained.wait_for(
                    lambda: self._drained_asked >= asked, timeout=min(remaining, 0.5)
                )
            if drained:
                self.refresh()
                return True
        self.refresh(force=True)
        return True

    def _stream_opened(self) -> None:
        """Wait (at most 2 s) for the change stream's first open, before reading what
        MongoDB holds, so nothing written meanwhile is missed; a server that is down
        answers the first try, and the read then fails at once. A snapshot is answered
        from before that: the catch-up after it comes after the wait. The stream is
        opened here, not at start: on SecantusDB's daemon opening it took about 20 s at
        100k notes, and the server answered nothing else meanwhile."""
        if not self._use_change_stream:
            return
        with self._start_lock:
            if not self._watching:
                from memory_app.notes.lib.replica.follow import watch

                self._watching = True
                self._spawn(lambda: watch(self), "qqweb-vector-watch")
        self._stream_tried.wait(timeout=2.0)

    def _follow(self) -> None:
        follow(self)

    # --- told by the store and the change stream -------------------------------------------

    def forget_everything(self) -> None:
        """Every note was deleted (or the collection dropped): start again from nothing
        but what MongoDB holds now."""
        with self._lock:
            self._reload_needed = True
        if self._ready.is_set():
            self.refresh()

    # --- keeping in step -----------------------------------------------------------------

    def refresh(self, force: bool = False, reload: bool = False) -> None:
        """Catch up with MongoDB now (the follower thread's step; jobs and tests call it to
        be sure). ``reload`` throws the index away (in every process) and reads every
        vector again."""
        if self._source is None:
            return
        with self._refreshing:
            self._refresh(force, reload)

    def _refresh(self, force: bool, reload: bool) -> None:
        assert self._source is not None
        if reload:
            self._source.bump_index_generation()
        generation = self._source.index_generation()
        with self._lock:
            full = reload or self._reload_needed or not self._ready.is_set()
            full = full or generation != self._seen_generation
        if full:
            self._load(generation, use_snapshot=not (reload or self._reload_needed))
        catching_up = not self._caught_up.is_set()
        if catching_up:
            self._stream_opened()
        if catching_up:  # after a load from a snapshot: what changed since it was saved
            self._catch_up_diff()
        elif not self.follows_change_stream and (
            force or time.monotonic() - self._diffed_at >= self._diff_every
        ):
            self._diff()
        self._apply()
        if catching_up:
            self._caught_up.set()
        if self._needs_fold():
            self._fold()

    def _load(self, generation: int, *, use_snapshot: bool) -> None:
        assert self._source is not None
        snapshot = None
        if use_snapshot and self._directory is not None:
            snapshot = load_snapshot(self._directory, generation)
        with self._lock:
            self._reload_needed = False
            self._loading, self._touched_while_loading = True, set()
        self._caught_up.clear()
        if snapshot is None:
            self._stream_opened()
            total = self._count()
            self._progress = (0, total)
            rows = vector_follow.every_vector(self._source, total, self._load_batch)
            snapshot = build_snapshot(
                self._counted(rows, total),
                generation,
                self._directory,
                self._exact_below,
            )
            caught_up = True
        else:
            caught_up = False
        with self._lock:
            self._epoch += 1
            self._install(snapshot)
            self._seen_generation = generation
            self._loading = False
            self._pending_notes.update(self._touched_while_loading)  # written meanwhile
        self._apply()  # what qqweb wrote meanwhile (a few notes): its writer sees them
        self._ready.set()  # answers from the snapshot from now on; the caller catches up
        if caught_up:
            self._caught_up.set()

    def _count(self) -> int | None:
        """About how many notes there are (None: the server did not say)."""
        assert self._source is not None
        try:
            return self._source.count_notes().value
        except StoreUnavailable:
            return None

    def _counted(
        self, docs: Iterable[dict[str, Any]], total: int | None
    ) -> Iterator[dict[str, Any]]:
        """``docs`` (of about ``total``), keeping :attr:`_progress` (what
        :class:`IndexWarming` says) and :attr:`loaded_rows` (what the notes list's loading
        message says)."""
        read = self.loaded_rows = 0
        self._progress = (0, total)
        for doc in docs:
            read += 1
            if read % 1000 == 0:
                self._progress, self.loaded_rows = (read, total), read
            yield doc
        self._progress, self.loaded_rows = (read, total), read

    def _diff(self) -> None:
        diff(self)

    def _catch_up_diff(self) -> None:
        """The diff after opening a snapshot, shared with the other processes that opened
        it (``shared_diff.py``): one of them diffs, the others take its result."""
        began = time.monotonic()

        def live_since() -> float | None:
            return self._stream_live_at if self.follows_change_stream else None

        changed, itself = shared_diff.catch_up(
            self._snapshot.directory,
            live_since if self._use_change_stream else None,
            lambda: changed_ids(self),
            self._stop.is_set,
        )
        self.diffed_itself += itself
        record_diff(self, changed, time.monotonic() - began)

    def _apply(self, notes: set[str] | None = None) -> None:
        assert self._source is not None
        with self._lock:  # what the stream handed over: only under ``_refreshing``
            objects: set[Any] = set()
            if notes is None:
                notes, self._pending_notes = self._pending_notes, set()
                objects, self._pending_objects = self._pending_objects, set()
        size = self._load_batch  # many changed notes (a re-embedding): bounded queries
        try:
            if notes:
                found = {
                    str(d["note_id"])
                    for chunk in vector_follow.batched(sorted(notes), size)
                    for d in self._reput(self._source.vector_rows(note_ids=chunk))
                }
                with self._lock:
                    for note_id in notes - found:
                        self._forget(note_id)
            if objects:
                found_objects = {
                    d["_id"]
                    for chunk in vector_follow.batched(objects, size)
                    for d in self._reput(self._source.vector_rows(object_ids=chunk))
                }
                with self._lock:
                    for object_id in objects - found_objects:
                        gone = self._versions.note_of_object(object_id)
                        if gone is not None:
                            self._forget(gone)
        except StoreUnavailable:
            with self._lock:  # try again at the next step
                self._pending_notes.update(notes or ())
                self._pending_objects.update(objects)
            raise

    # --- folding the delta into new segments ----------------------------------------------

    def _needs_fold(self) -> bool:
        return needs_fold(self)

    def _fold(self) -> None:
        fold(self)

    # --- questions -------------------------------------------------------------------------

    def add_vectors(self, ids: list[str], sections: list[str | None], matrix: np.ndarray) -> None:
        """Bulk-load rows into an index without a source (benchmarks, tests)."""
        rows = [
            {"note_id": i, "section": s, "embedding": r}
            for i, s, r in zip(ids, sections, np.asarray(matrix, dtype=np.float32), strict=True)
        ]
        snapshot = build_snapshot(iter(rows), 0, self._directory, self._exact_below)
        with self._lock:
            self._epoch += 1
            self._install(snapshot)
        self._ready.set()
        self._caught_up.set()

    def holds(self, note_id: str) -> bool:
        """Whether ``note_id`` has a vector in the index (as of the last catch-up)."""
        return vector_search.holds(self, note_id)

    def dimensions(self) -> dict[int, int]:
        return vector_search.dimensions(self)

    def search(
        self,
        query: list[float] | np.ndarray,
        *,
        limit: int = 5,
        section: str | None = None,
        min_score: float | None = None,
    ) -> SearchResult:
        return vector_search.search(self, query, limit=limit, section=section, min_score=min_score)

    def rows_by_dimension(self) -> dict[int, tuple[list[str], np.ndarray]]:
        return vector_search.rows_by_dimension(self)

    def search_notes(
        self, query: list[float], *, limit: int = 5, section: str | None = None
    ) -> list[dict[str, Any]]:
        """The seed's ``search_similar`` shape, documents fetched with one ``$in``."""
        return vector_search.search_notes(self, query, limit=limit, section=section)
