"""The vector index's helpers that run off the request path: the change-stream thread
(collects the ``_id`` of every changed note for the follower to re-read, or asks for a full
reload on a drop or an invalidate) and the fold of the delta into new segments; and the
protocol of what the index needs from the notes store.

**How soon a note written by one process is found in the others.** The writer's own index
is told by the store and re-reads the note before the write returns: its next search finds
it. Every other process (the other gunicorn workers, the Celery workers) learns of it from
its change stream, whose thread hands the note's ``_id`` over and wakes the follower
(:func:`follow`), which reads the note by ``_id`` into the index and the read model
(search and the notes list's text filter both answer from those). So a note is found by
search and the text filter in the other processes once their stream delivers the change,
plus one read by ``_id`` (milliseconds on loopback):

- a server that holds the stream's poll open until a change comes (a replica set,
  SecantusDB in-process) delivers it at once: measured here (20 notes written through
  one index's store, SecantusDB in-process, load 11), another index held each 7 ms
  later (p50; 18 ms at most), where the follower that read what the stream collected
  once a second took 670 ms (p50; 699 ms at most, load 9);
- a server that answers an empty poll at once (SecantusDB's daemon) is polled every
  ``IDLE_POLL_S`` (0.25 s) while nothing happens: at most that plus a poll.

Changes handed over while the follower reads are read in its next light step, together.
What lengthens it: a full step the follower is in (every ``refresh_interval``; its fold of
the delta into a new snapshot takes milliseconds below ``exact_below`` notes, longer from
there on, every ``fold_at`` changes). Where the server has no change stream, the follower
diffs every note's id and stamp every ``refresh_interval`` seconds, or five times as long
as the last diff took if that is longer (tens of seconds at 100k notes on a slow server). A
job that must count exactly what MongoDB holds does not rely on any of this:
:meth:`VectorIndex.in_step` returns once the index holds every write acknowledged before it
was called.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from typing import Any, TypeVar

from memory_app.notes.lib.replica.books import version_key
from memory_app.notes.lib.replica.core import IndexCore, VectorSource
from memory_app.notes.lib.replica.id_windows import Window, WindowPlanner
from qqweb.lib.errors import StoreError, StoreUnavailable

log = logging.getLogger(__name__)

T = TypeVar("T")

IDLE_POLL_S = 0.25  # at most four empty polls of the change stream a second
DIFF_WINDOW = 250  # notes the first diff query reads (a range of note ids; Reads.id_versions)
DIFF_WINDOW_MOST = 8000  # ... and any later one, sized by how long the last took:
DIFF_QUERY_S = 0.015  # about this long each (the daemon: 63 ms for 1,000 ids, 16 for 250)
LOAD_RETRIES, LOAD_RETRY_S = 15, 2.0  # one range of the load, asked again (every_vector)


def watch(index: IndexCore) -> None:
    source = index._source
    assert source is not None
    token = None
    while not index._stop.is_set():
        try:
            with source.watch_changes(resume_after=token) as stream:
                if not index._stream_live.is_set():
                    index._stream_live_at = time.time()
                index._stream_live.set()
                index._stream_tried.set()
                while stream.alive and not index._stop.is_set():
                    asked = time.monotonic()
                    change = stream.try_next()
                    if change is None:
                        index.stream_drained(asked)
                        # A server that answers an empty batch at once instead of waiting
                        # max_await_time_ms (SecantusDB's daemon) would make this a busy
                        # loop holding the GIL: 75 ms a search at 30k notes instead of 1.
                        idle = IDLE_POLL_S - (time.monotonic() - asked)
                        if idle > 0:
                            index._stop.wait(idle)
                        continue
                    token = stream.resume_token
                    key = (change.get("documentKey") or {}).get("_id")
                    if key is None:  # a drop or an invalidate: read everything again
                        with index._lock:
                            index._reload_needed = True
                    else:
                        index.objects_changed([key])
                if not stream.alive:  # invalidated (collection dropped): stop following
                    break
        except StoreUnavailable:  # down for now: the diff covers the gap, then retry
            index._stream_live.clear()
            index._stream_tried.set()
            index._stop.wait(2.0)
            continue
        except StoreError as e:  # no change streams on this server: diff instead
            log.info("vector index: no change stream (%s); diffing ids instead", e)
            break
        except Exception:  # a bug in here must not kill the process, only the stream
            log.exception("vector index: change stream stopped")
            break
    index._stream_live.clear()
    index._stream_tried.set()


def follow(index: IndexCore) -> None:
    """The follower thread: a full step (:meth:`VectorIndex.refresh`: a rebuild asked for,
    the diff where there is no change stream, the notes handed over, the fold) every
    ``refresh_interval`` seconds after the last one ended; between them, each time the
    change stream hands notes over, a light one: only those notes are read (no fold: no
    more snapshots saved than before, however often the agent writes), under the
    catch-up's lock, so :meth:`VectorIndex.in_step` waits for a read under way."""
    due = 0.0  # when the next full step is due (monotonic)
    while not index._stop.is_set():
        index._wake.clear()
        full = time.monotonic() >= due or not index.caught_up
        try:
            if full:
                index.refresh()
            else:  # under the catch-up's lock: in_step's refresh waits for these reads
                with index._refreshing:
                    index._apply()
        except StoreUnavailable as e:  # down for now: try again later
            log.info("vector index: %s", e)
        except Exception:  # a bug must not kill the follower: log it and go on
            log.exception("vector index: refresh failed")
        if full:
            due = time.monotonic() + max(index._refresh_interval, 0.05)
        index._wake.wait(max(due - time.monotonic(), 0.0))


def needs_fold(index: IndexCore) -> bool:
    with index._lock:
        changed = len(index._delta) + sum(int(m.sum()) for m in index._masked.values())
        size = sum(len(s) for s in index._snapshot.segments.values())
    return changed > 0 and (changed >= max(index._fold_at, size // 50) or size < index._exact_below)


def fold(index: IndexCore) -> None:
    """New segments from the live rows of the old ones and the delta, built without the
    lock; changes made meanwhile stay in the delta of the new ones."""
    with index._lock:
        epoch, journal_at = index._epoch, len(index._journal)
        base = index._snapshot
        masked = {d: m.copy() for d, m in index._masked.items()}
        delta = dict(index._delta)
        versions = index._versions.copy()
        model = index.read_model.copy()
    snapshot = base.folded(masked, delta, versions, model, index._directory, index._exact_below)
    with index._lock:
        if epoch != index._epoch:  # reloaded meanwhile
            snapshot.retire()
            return
        since = set(index._journal[journal_at:])
        keep = {n: index._delta[n] for n in since if n in index._delta}
        versions_now, model_now = index._versions, index.read_model
        index._install(snapshot)
        index._versions = versions_now.rebased(snapshot.books, since)
        index.read_model = model_now
        for note_id in since:  # changed during the build: the new segment's row is stale
            where = snapshot.row_of(note_id)
            if where is not None:
                index._masked[where[0]][where[1]] = True
        index._delta = keep


def diff(index: IndexCore) -> None:
    """:func:`changed_ids`, handed to the follower to re-read, and when to diff next."""
    started = time.monotonic()
    changed = changed_ids(index)
    record_diff(index, changed, time.monotonic() - started)


def record_diff(index: IndexCore, changed: set[str], seconds: float) -> None:
    with index._lock:
        index._pending_notes.update(changed)
    index._diffed_at = time.monotonic()
    index._diff_every = max(index._refresh_interval, 5 * seconds)


def changed_ids(index: IndexCore) -> set[str]:
    """Compare every ``(_id, note_id, updated_at)`` with what the index holds, read in
    windows of the note ids the index knows (notes with other ids fall in the windows
    around them; :func:`paced_bounds`), so the server answers the pages' queries between
    windows instead of after the whole read; the note ids that differ (changed, new, or
    gone)."""
    assert index._source is not None
    live: set[str] = set()
    changed: set[str] = set()
    with index._lock:
        versions = index._versions.copy()  # shares the snapshot's memory-mapped columns
    known = versions.note_ids()
    window: list[tuple[str, int]] = []

    def compare() -> None:
        held = versions.keys([n for n, _ in window])
        changed.update(n for (n, key), was in zip(window, held, strict=True) if key != was)
        window.clear()

    bounds = paced_bounds(known, DIFF_WINDOW, DIFF_WINDOW_MOST, DIFF_QUERY_S)
    for object_id, note_id, updated in index._source.id_versions(bounds):
        live.add(note_id)
        window.append((note_id, version_key(object_id, updated)))
        if len(window) >= DIFF_WINDOW_MOST:
            compare()
    compare()
    changed.update(i for i in known if i not in live)
    return changed


def paced_bounds(
    known: Sequence[str],
    first: int,
    most: int,
    aim_s: float,
    clock: Callable[[], float] = time.monotonic,
) -> Iterator[str]:
    """The upper edges of the diff's windows over the sorted ids ``known``, asked for
    lazily (``Reads.id_versions`` asks for the next edge as it starts a window): the first
    window holds ``first`` ids, each next one as many as the last window's time allows for
    ``aim_s`` (at most twice or half the last, ``first`` to ``most`` ids). On a server
    answering one query at a time (SecantusDB's daemon) a page's query then waits about
    ``aim_s`` behind a window, not 63 ms behind 1,000 ids; on one that answers at once
    (the Rust server, MongoDB) the windows grow and the diff makes few round trips."""
    size, at, asked = first, 0, clock()
    while True:
        at += size
        if at >= len(known):
            return
        yield str(known[at])
        now = clock()
        took, asked = now - asked, now
        if took > 0:
            size = int(min(max(size * aim_s / took, size / 2), size * 2))
        else:
            size *= 2
        size = min(max(size, first), most)


def every_vector(source: VectorSource, total: int | None, batch: int) -> Iterator[dict[str, Any]]:
    """Every note's row (``vector_rows``) in queries of at most ``batch`` rows, whatever
    the note ids look like: one query per window of note ids (``id_windows``: each
    window's upper edge estimated from the ids read so far, sorted by ``note_id``, at
    most ``batch`` rows; a window holding more goes on after its last row), so the
    server answers the pages' queries between them and never holds every vector at
    once. A note written meanwhile falls in a window read later, or reaches the index
    through the change stream (opened before this read) or the next diff. A thread reads
    the next windows (two at most) while the caller builds from this one: the server's
    work and the index's overlap."""
    ready: queue.Queue[list[dict[str, Any]] | Exception | None] = queue.Queue(maxsize=2)
    stop = threading.Event()

    def hand_over(item: list[dict[str, Any]] | Exception | None) -> bool:
        while not stop.is_set():
            try:
                ready.put(item, timeout=0.5)
                return True
            except queue.Full:
                continue
        return False  # the caller stopped reading

    def read() -> None:
        try:
            for rows in _ranges(source, total, batch):
                if not hand_over(rows):
                    return
            hand_over(None)
        except Exception as e:  # the caller raises it
            hand_over(e)

    threading.Thread(target=read, name="qqweb-vector-read", daemon=True).start()
    try:
        while (item := ready.get()) is not None:
            if isinstance(item, Exception):
                raise item
            yield from item
    finally:
        stop.set()


def _ranges(source: VectorSource, total: int | None, batch: int) -> Iterator[list[dict[str, Any]]]:
    planner = WindowPlanner(total or 0, batch)
    for window in planner.windows():
        rows = _retried(partial(_rows_in, source, window, planner.batch))
        planner.read([str(r["note_id"]) for r in rows])
        if rows:
            yield rows


def _rows_in(source: VectorSource, window: Window, limit: int) -> list[dict[str, Any]]:
    edges = (window.low, window.high)
    return list(source.vector_rows(window=edges, after=window.after, limit=limit))


def _retried(read: Callable[[], list[T]]) -> list[T]:
    """``read()``, asked again while the server is unavailable, at most
    :data:`LOAD_RETRIES` times :data:`LOAD_RETRY_S` apart, so a passing failure does not
    start the load again from its first note (on the daemon at 100k notes, load 13, the
    driver cancelled queries under way: "operation cancelled", and the load never ended)."""
    for _ in range(LOAD_RETRIES):
        try:
            return read()
        except StoreUnavailable as e:
            log.info("vector index: %s; reading this range again", e)
            time.sleep(LOAD_RETRY_S)
    return read()


def batched(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """``items`` in lists of at most ``size``."""
    chunk: list[T] = []
    for item in items:
        chunk.append(item)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
