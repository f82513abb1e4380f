"""In-process vector index over the notes' embeddings: exact cosine with numpy.

The agent keeps embeddings as lists in the documents and has no vector index; reading
every document per query costs seconds at 100k notes. This index keeps one normalised
float32 matrix per embedding dimension in memory, and never misses a note:

- the first search loads every vector once (``_id``, ``note_id``, ``section``,
  ``embedding``, ``updated_at``);
- every write qqweb makes goes through the store, which tells the index the ids it wrote
  (:meth:`VectorIndex.notes_changed`): the next search re-reads exactly those notes, so a
  note brought back by an undo is found at once, whatever its ``updated_at``;
- writes by the agent arrive through a change stream where the server has one (SecantusDB
  and replica sets do): a background thread collects the ``_id`` of every changed
  document and the next search re-reads them;
- where there is no change stream, the index diffs at most every ``refresh_interval``
  seconds: every ``(_id, note_id, updated_at)`` is compared with what it holds, and
  notes that are new, gone or carry another ``updated_at`` (older ones included: a clock
  that runs behind, an undo) are re-read. No time watermark is trusted.

A "rebuild" bumps a generation number in a small ``qqweb_meta`` collection beside the
notes (the agent never reads it); every process's index sees the new number within
``refresh_interval`` and reads everything again.

A query is only compared with vectors of its own dimension; the others are counted and
reported (the agent silently truncates; we refuse). Where the server offers
``$vectorSearch`` (Atlas, MongoDB 8.2+ with mongot) and an index name is configured, it is
used instead, falling back to this index when the server refuses.

The index speaks to MongoDB only through the store's named methods (:class:`VectorSource`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

import numpy as np

from .errors import DimensionMismatch, StoreError, StoreUnavailable

log = logging.getLogger(__name__)


class VectorSource(Protocol):
    """What the index needs from the notes store."""

    def vector_rows(
        self, *, note_ids: Iterable[str] | None = None, object_ids: Iterable[Any] | None = None
    ) -> Iterator[dict[str, Any]]: ...

    def id_versions(self) -> Iterator[tuple[Any, str, datetime | None]]: ...

    def watch_changes(self, resume_after: Any = None) -> Any: ...

    def index_generation(self) -> int: ...

    def bump_index_generation(self) -> None: ...

    def notes_by_ids(
        self, note_ids: Iterable[str], *, with_embedding: bool = False
    ) -> dict[str, dict[str, Any]]: ...

    def atlas_vector_search(
        self, index: str, query: list[float], limit: int, section: str | None
    ) -> list[dict[str, Any]]: ...


def normalise(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms


@dataclass
class _Block:
    """All vectors of one dimension."""

    dim: int
    ids: list[str] = field(default_factory=list)
    sections: list[str | None] = field(default_factory=list)
    rows: list[np.ndarray] = field(default_factory=list)
    matrix: np.ndarray | None = None
    section_array: np.ndarray | None = None

    def freeze(self) -> None:
        self.matrix = (
            normalise(np.vstack(self.rows))
            if self.rows
            else np.zeros((0, self.dim), dtype=np.float32)
        )
        self.section_array = np.asarray(self.sections, dtype=object)


@dataclass
class SearchResult:
    hits: list[tuple[str, float]]
    compared: int
    skipped_other_dimensions: dict[int, int]


class VectorIndex:
    def __init__(
        self,
        source: VectorSource | None,
        refresh_interval: float = 1.0,
        vector_search_index: str = "",
        *,
        use_change_stream: bool = True,
    ) -> None:
        self._source = source
        self._refresh_interval = refresh_interval
        self._vector_search_index = vector_search_index
        self._use_change_stream = use_change_stream
        self._lock = threading.RLock()
        self._where: dict[str, tuple[int, int]] = {}  # note_id -> (dim, row)
        self._blocks: dict[int, _Block] = {}
        self._versions: dict[str, tuple[Any, datetime | None]] = {}  # note_id -> (_id, updated)
        self._by_object: dict[Any, str] = {}  # _id -> note_id
        self._pending_notes: set[str] = set()
        self._pending_objects: set[Any] = set()
        self._checked_at = 0.0
        self._loaded = False
        self._dirty = False
        self._seen_generation = 0
        self._watcher: threading.Thread | None = None
        self._stream_live = threading.Event()
        self._stream_tried = threading.Event()  # the first open of the stream ended either way
        self._stop = threading.Event()

    # --- told by the store and the change stream -------------------------------------------

    def notes_changed(self, note_ids: Iterable[str]) -> None:
        """These notes were just written (or deleted): re-read them before the next search."""
        with self._lock:
            self._pending_notes.update(note_ids)

    def forget_everything(self) -> None:
        with self._lock:
            self._loaded = False

    def close(self) -> None:
        """Stop the change-stream thread (tests, shutdown)."""
        self._stop.set()
        if self._watcher is not None:
            self._watcher.join(timeout=5)

    @property
    def follows_change_stream(self) -> bool:
        return self._stream_live.is_set()

    def _watch(self) -> None:
        assert self._source is not None
        token = None
        while not self._stop.is_set():
            try:
                with self._source.watch_changes(resume_after=token) as stream:
                    self._stream_live.set()
                    self._stream_tried.set()
                    while stream.alive and not self._stop.is_set():
                        change = stream.try_next()
                        if change is None:
                            continue
                        token = stream.resume_token
                        key = (change.get("documentKey") or {}).get("_id")
                        with self._lock:
                            if key is None:  # a drop or an invalidate: read everything again
                                self._loaded = False
                            else:
                                self._pending_objects.add(key)
                    if not stream.alive:  # invalidated (collection dropped): stop following
                        break
            except StoreUnavailable:  # down for now: the diff covers the gap, then retry
                self._stream_live.clear()
                self._stream_tried.set()
                self._stop.wait(2.0)
                continue
            except StoreError as e:  # no change streams on this server: diff instead
                log.info("vector index: no change stream (%s); diffing ids instead", e)
                break
            except Exception:  # a bug in here must not kill the process, only the stream
                log.exception("vector index: change stream stopped")
                break
        self._stream_live.clear()
        self._stream_tried.set()

    def _start_watcher(self) -> None:
        if not self._use_change_stream or self._watcher is not None:
            return
        self._watcher = threading.Thread(target=self._watch, name="qqweb-vector-watch", daemon=True)
        self._watcher.start()
        # Opened before the first load, so nothing written during the load is missed; a
        # server that is down answers the first try, and the load then fails at once.
        self._stream_tried.wait(timeout=2.0)

    # --- keeping in step -----------------------------------------------------------------

    def refresh(self, force: bool = False, reload: bool = False) -> None:
        """Catch up with MongoDB. ``reload`` throws the index away (in every process) and
        reads every vector again."""
        if self._source is None:  # a purely in-memory index (add_vectors)
            return
        with self._lock:
            if reload:
                self._source.bump_index_generation()
                self._loaded = False
            if not self._loaded:
                self._start_watcher()
                self._seen_generation = self._source.index_generation()
                self._load_all()
            elif force or time.monotonic() - self._checked_at >= self._refresh_interval:
                generation = self._source.index_generation()
                if generation != self._seen_generation:
                    self._seen_generation = generation
                    self._load_all()
                elif not self.follows_change_stream:
                    self._diff()
                self._checked_at = time.monotonic()
            self._apply_pending()
            if self._dirty:
                self._freeze()

    def _load_all(self) -> None:
        assert self._source is not None
        self._where, self._blocks, self._versions, self._by_object = {}, {}, {}, {}
        self._pending_notes, self._pending_objects = set(), set()
        for doc in self._source.vector_rows():
            self._put(doc)
        self._loaded = True
        self._checked_at = time.monotonic()
        self._dirty = True

    def _diff(self) -> None:
        """Compare every ``(_id, note_id, updated_at)`` with what the index holds."""
        assert self._source is not None
        live: set[str] = set()
        for object_id, note_id, updated in self._source.id_versions():
            live.add(note_id)
            if self._versions.get(note_id) != (object_id, updated):
                self._pending_notes.add(note_id)
        self._pending_notes.update(i for i in self._versions if i not in live)

    def _apply_pending(self) -> None:
        if not (self._pending_notes or self._pending_objects):
            return
        assert self._source is not None
        notes, objects = self._pending_notes, self._pending_objects
        self._pending_notes, self._pending_objects = set(), set()
        if notes:
            found = {
                str(d["note_id"]) for d in self._reput(self._source.vector_rows(note_ids=notes))
            }
            for note_id in notes - found:
                self._forget(note_id)
        if objects:
            found_objects = {
                d["_id"] for d in self._reput(self._source.vector_rows(object_ids=objects))
            }
            for object_id in objects - found_objects:
                gone = self._by_object.get(object_id)
                if gone is not None:
                    self._forget(gone)

    def _reput(self, docs: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        for doc in docs:
            self._put(doc)
            yield doc

    def _put(self, doc: dict[str, Any]) -> None:
        note_id = str(doc["note_id"])
        self._forget(note_id)
        object_id = doc.get("_id")
        self._versions[note_id] = (object_id, doc.get("updated_at"))
        if object_id is not None:
            self._by_object[object_id] = note_id
        vector = doc.get("embedding") or []
        if not isinstance(vector, list) or not vector:
            return  # known, with no vector to search
        dim = len(vector)
        block = self._blocks.setdefault(dim, _Block(dim))
        block.ids.append(note_id)
        block.sections.append(doc.get("section"))
        block.rows.append(np.asarray(vector, dtype=np.float32))
        self._where[note_id] = (dim, len(block.ids) - 1)
        self._dirty = True

    def _forget(self, note_id: str) -> None:
        version = self._versions.pop(note_id, None)
        if version is not None and self._by_object.get(version[0]) == note_id:
            del self._by_object[version[0]]
        if note_id not in self._where:
            return
        dim, row = self._where.pop(note_id)
        block = self._blocks[dim]
        last = len(block.ids) - 1
        if row != last:  # move the last row into the hole
            block.ids[row], block.sections[row], block.rows[row] = (
                block.ids[last],
                block.sections[last],
                block.rows[last],
            )
            self._where[block.ids[row]] = (dim, row)
        block.ids.pop()
        block.sections.pop()
        block.rows.pop()
        self._dirty = True

    def _freeze(self) -> None:
        for block in self._blocks.values():
            block.freeze()
        self._dirty = False

    # --- questions -------------------------------------------------------------------------

    def add_vectors(self, ids: list[str], sections: list[str | None], matrix: np.ndarray) -> None:
        """Bulk-load rows (benchmarks, imports); later refreshes keep them in step."""
        with self._lock:
            for note_id, section, row in zip(ids, sections, np.asarray(matrix), strict=True):
                self._put({"note_id": note_id, "section": section, "embedding": row.tolist()})
            self._loaded = True
            self._checked_at = time.monotonic()
            self._freeze()

    def holds(self, note_id: str) -> bool:
        """Whether ``note_id`` has a vector in the index (after catching up)."""
        self.refresh()
        with self._lock:
            return note_id in self._where

    def dimensions(self) -> dict[int, int]:
        self.refresh()
        return {dim: len(b.ids) for dim, b in self._blocks.items() if b.ids}

    def search(
        self,
        query: list[float] | np.ndarray,
        *,
        limit: int = 5,
        section: str | None = None,
        min_score: float | None = None,
    ) -> SearchResult:
        self.refresh()
        vector = np.asarray(query, dtype=np.float32).ravel()
        dim = int(vector.shape[0])
        with self._lock:
            others = {d: len(b.ids) for d, b in self._blocks.items() if d != dim and b.ids}
            block = self._blocks.get(dim)
            if block is None or not block.ids:
                if others:
                    expected = max(others, key=lambda d: others[d])
                    raise DimensionMismatch(expected, dim, "the query vector")
                return SearchResult([], 0, {})
            assert block.matrix is not None and block.section_array is not None
            scores = block.matrix @ normalise(vector)
            if section is not None:
                scores = np.where(block.section_array == section, scores, -np.inf)
            k = min(int(limit), len(scores))
            if k <= 0:
                return SearchResult([], len(scores), others)
            top = np.argpartition(-scores, k - 1)[:k]
            top = top[np.argsort(-scores[top], kind="stable")]
            hits = [(block.ids[i], float(scores[i])) for i in top if np.isfinite(scores[i])]
            compared = len(block.ids)
        if min_score is not None:
            hits = [(i, s) for i, s in hits if s >= min_score]
        return SearchResult(hits, compared, others)

    def search_notes(
        self, query: list[float], *, limit: int = 5, section: str | None = None
    ) -> list[dict[str, Any]]:
        """The seed's ``search_similar`` shape, documents fetched with one ``$in``."""
        assert self._source is not None
        if self._vector_search_index:
            try:
                return self._source.atlas_vector_search(
                    self._vector_search_index, query, limit, section
                )
            except StoreError:
                pass  # this server has no $vectorSearch: use the in-process index
        result = self.search(query, limit=limit, section=section)
        scores = dict(result.hits)
        found = self._source.notes_by_ids(list(scores))
        gone = [i for i in scores if i not in found]
        if gone:  # deleted since the last refresh: forget them now
            self.notes_changed(gone)
        fields = ("note_id", "content", "section", "importance")
        return [
            {**{k: found[i].get(k) for k in fields}, "score": round(s, 6)}
            for i, s in result.hits
            if i in found
        ]
