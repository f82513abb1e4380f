"""The vector index's state, shared by what answers from it and what keeps it in step: the
segments and the delta, the read model, the follower's bookkeeping and the events
threads wait on; writing a note's row into the delta and forgetting one; starting the
background work and waiting for it. :class:`~.index.VectorIndex` builds on it with the
catch-up; ``follow.py`` (the change stream, the follower, the diff, the fold) and
``search.py`` (the questions) take an :class:`IndexCore`, so none of them imports the
index: the index imports them."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol, TypeVar

import numpy as np

from memory_app.notes.lib.domain import Note
from memory_app.notes.lib.replica.books import Versions
from memory_app.notes.lib.replica.read_model import ReadModel, stamp
from memory_app.notes.lib.replica.segments import EXACT_BELOW
from memory_app.notes.lib.replica.state import Snapshot
from qqweb.lib.errors import QQError, StoreUnavailable
from qqweb.lib.vectors import normalise

log = logging.getLogger(__name__)

T = TypeVar("T")

# Embeddings one query of the vector index asks for at most (the load without a snapshot,
# the re-read of many changed notes): SecantusDB's daemon reads a find's whole result
# before its first batch and answers nothing else meanwhile; every vector at once grew it
# past 10 GB at 100k notes of 384 floats.
LOAD_BATCH = 500


class VectorSource(Protocol):
    """What the index needs from the notes store."""

    def vector_rows(
        self,
        *,
        note_ids: Iterable[str] | None = None,
        object_ids: Iterable[Any] | None = None,
        window: tuple[str | None, str | None] | None = None,
        after: bool = False,
        limit: int = 0,
    ) -> Iterator[dict[str, Any]]: ...

    def id_versions(
        self, bounds: Iterable[str] = ()
    ) -> Iterator[tuple[Any, str, tuple[Any, ...]]]: ...

    def count_notes(self) -> Any: ...  # a NotesCount: about how many notes (the progress)

    def watch_changes(self, resume_after: Any = None) -> Any: ...

    def index_generation(self) -> int: ...

    def bump_index_generation(self) -> None: ...

    def notes_by_ids(
        self, note_ids: Iterable[str], *, with_embedding: bool = False
    ) -> dict[str, Note]: ...

    def atlas_vector_search(
        self, index: str, query: list[float], limit: int, section: str | None
    ) -> list[dict[str, Any]]: ...


class IndexWarming(StoreUnavailable):
    """The index is still loading in the background (a process that just started), with
    how far it got: ``read`` notes of about ``total`` (None: not known yet)."""

    def __init__(self, read: int = 0, total: int | None = None) -> None:
        QQError.__init__(self, _loading_text(read, total))
        self.store, self.read, self.total = "the search index", read, total
        self.message = str(self)

    def __reduce__(self) -> tuple[type, tuple[int, int | None]]:  # type: ignore[override]
        return type(self), (self.read, self.total)


def _loading_text(read: int, total: int | None) -> str:
    if total is None:
        where = f"{read:,} notes so far" if read else "starting"
    else:
        where = f"{min(read, total):,} of {total:,} notes"
    return f"the search index is loading ({where}); try again in a few seconds"


class IndexCore:
    """The state; the catch-up (:meth:`refresh`, :meth:`_apply`) and the follower thread
    (:meth:`_follow`) are :class:`~.index.VectorIndex`'s."""

    def __init__(
        self,
        source: VectorSource | None,
        refresh_interval: float = 1.0,
        vector_search_index: str = "",
        *,
        use_change_stream: bool = True,
        directory: Path | None = None,
        exact_below: int = EXACT_BELOW,
        fold_at: int = 2000,
        ready_timeout: float = 30.0,
        load_batch: int = LOAD_BATCH,
    ) -> None:
        self._source = source
        self._refresh_interval = refresh_interval
        self._vector_search_index = vector_search_index
        self._use_change_stream = use_change_stream
        self._directory = directory
        self._exact_below = exact_below
        self._fold_at = fold_at
        self._ready_timeout = ready_timeout
        self._load_batch = max(1, load_batch)  # embeddings one query asks for at most
        self._lock = threading.RLock()
        self._snapshot = Snapshot.empty()
        self.read_model = ReadModel()  # the small fields of every note (read_model.py)
        self._masked: dict[int, np.ndarray] = {}  # dim -> rows changed since the segment
        self._delta: dict[str, tuple[int, str, np.ndarray]] = {}  # note_id -> (dim, sec, v)
        self._delta_cache: dict[int, tuple[list[str], np.ndarray, np.ndarray]] | None = None
        self._versions = Versions(self._snapshot.books)  # every note's (_id, stamp)
        self._journal: list[str] = []  # note ids changed since the last fold started
        self._epoch = 0  # bumped by a full reload: a fold of an older epoch is dropped
        self._pending_notes: set[str] = set()
        self._pending_objects: set[Any] = set()
        self._reload_needed = False
        self._seen_generation = 0
        self._diff_every = refresh_interval
        self._diffed_at = 0.0
        self._ready = threading.Event()  # answers searches (maybe from an older snapshot)
        self._caught_up = threading.Event()  # ... and has caught up with MongoDB since
        self._progress: tuple[int, int | None] = (0, None)  # notes read, of about how many
        self._started = False
        self._watching = False  # the change-stream thread was started
        self._start_lock = threading.Lock()
        self._stream_live = threading.Event()
        self._stream_live_at = 0.0  # wall clock: when the stream last became live
        self.diffed_itself = 0  # start-up catch-ups this process diffed (not shared)
        self._stream_tried = threading.Event()  # the first open of the stream ended either way
        self._drained = threading.Condition()  # told when the stream answers "nothing more"
        self._drained_asked = 0.0  # when the last such answer was asked for (monotonic)
        self._stop = threading.Event()
        self._wake = threading.Event()  # the change stream handed over changes: step now
        self._threads: list[threading.Thread] = []
        self._refreshing = threading.Lock()  # one catch-up at a time
        self._loading = False
        self._touched_while_loading: set[str] = set()
        self.loaded_rows = 0  # notes read so far by a load without a snapshot (progress)

    def start(self) -> None:
        """Load in the background (once): the change stream first, then the snapshot or
        every vector, then follow MongoDB."""
        if self._source is None:
            self._ready.set()
            self._caught_up.set()
            return
        with self._start_lock:
            if self._started:
                return
            self._started = True
        self._spawn(self._follow, "qqweb-vector-follow")

    def _spawn(self, target: Any, name: str) -> None:
        thread = threading.Thread(target=target, name=name, daemon=True)
        self._threads.append(thread)
        thread.start()

    def close(self) -> None:
        """Stop the background threads (tests, shutdown)."""
        self._stop.set()
        self._wake.set()
        for thread in self._threads:
            thread.join(timeout=5)

    @property
    def ready(self) -> bool:
        return self._ready.is_set()

    def read(self, question: Callable[[ReadModel], T], *, wait: float = 0.0) -> T | None:
        """``question`` answered from the read model under the index's lock (the follower
        changes it in place), or None while it is still loading after waiting at most
        ``wait`` seconds: a request never waits longer, nor loads it itself."""
        self.start()
        if not self._ready.wait(timeout=max(0.0, wait)):
            return None
        with self._lock:
            return question(self.read_model)

    @property
    def counted(self) -> int | None:
        """How many notes the server said there were when the load without a snapshot
        began (None: before that, or none asked): what a page says while it loads, so it
        does not ask the server again (a count is a scan of every note on SecantusDB's
        daemon, 0.6 s at 100k, with the load's reads waiting behind it)."""
        return self._progress[1]

    @property
    def caught_up(self) -> bool:
        """Ready, and caught up with what MongoDB held when the process started (the
        notes written while no process ran included)."""
        return self._caught_up.is_set()

    @property
    def follows_change_stream(self) -> bool:
        return self._stream_live.is_set()

    def wait_caught_up(self, timeout: float | None = None) -> bool:
        """Start if needed and wait for the catch-up (jobs, tests); whether it ended."""
        self.start()
        return self._caught_up.wait(timeout=timeout)

    def stream_drained(self, asked: float) -> None:
        """The change stream answered, to a poll asked at ``asked`` (monotonic), that it
        holds no change not yet handed over (``vector_follow.watch``)."""
        with self._drained:
            self._drained_asked = max(self._drained_asked, asked)
            self._drained.notify_all()

    def _wait_ready(self) -> None:
        self.start()
        if not self._ready.wait(timeout=self._ready_timeout):
            raise IndexWarming(*self._progress)

    def notes_changed(self, note_ids: Iterable[str]) -> None:
        """These notes were just written (or deleted): re-read them now, so the writer's
        next search sees them."""
        note_ids = set(note_ids)
        if self._source is None or not note_ids:
            return
        if not self._ready.is_set():
            with self._lock:
                self._pending_notes.update(note_ids)
            return
        try:
            self._apply(notes=note_ids)
        except StoreUnavailable:
            with self._lock:
                self._pending_notes.update(note_ids)

    def objects_changed(self, object_ids: Iterable[Any]) -> None:
        """The change stream handed these over: the follower reads them now (with those
        handed over while it reads, in its next light step: ``vector_follow.follow``)."""
        with self._lock:
            self._pending_objects.update(object_ids)
        self._wake.set()

    @contextmanager
    def reading(self) -> Iterator[ReadModel]:
        """The read model, held still while the caller reads it (the follower waits for
        the few milliseconds that takes). Starts the loading; never waits for it."""
        self.start()
        with self._lock:
            yield self.read_model

    def _install(self, snapshot: Snapshot) -> None:
        old = self._snapshot
        self._snapshot = snapshot
        self._masked = {d: np.zeros(len(s), dtype=bool) for d, s in snapshot.segments.items()}
        self._delta, self._delta_cache, self._journal = {}, None, []
        self._versions = Versions(snapshot.books)  # memory-mapped: nothing read per note
        self.read_model = snapshot.read_model
        if (
            old is not snapshot
            and old.directory is not None
            and old.directory != snapshot.directory
        ):
            old.retire()

    def _reput(self, docs: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        for doc in docs:
            with self._lock:
                self._put(doc)
            yield doc

    def _put(self, doc: dict[str, Any]) -> None:
        note_id = str(doc["note_id"])
        self._forget(note_id)
        self._versions.put(note_id, doc.get("_id"), stamp(doc))
        self.read_model.put(doc)
        vector = doc.get("embedding")
        if isinstance(vector, list | np.ndarray) and len(vector):
            row = normalise(np.asarray(vector, dtype=np.float32))
            self._delta[note_id] = (len(vector), str(doc.get("section") or ""), row)
            self._delta_cache = None

    def _forget(self, note_id: str) -> None:
        self._journal.append(note_id)
        if self._loading:
            self._touched_while_loading.add(note_id)
        self.read_model.forget(note_id)
        self._versions.forget(note_id)
        if self._delta.pop(note_id, None) is not None:
            self._delta_cache = None
        where = self._snapshot.row_of(note_id)
        if where is not None:
            self._masked[where[0]][where[1]] = True

    # --- the catch-up's, defined by VectorIndex --------------------------------------------

    def refresh(self, force: bool = False, reload: bool = False) -> None:
        raise NotImplementedError

    def _apply(self, notes: set[str] | None = None) -> None:
        raise NotImplementedError

    def _follow(self) -> None:
        raise NotImplementedError
