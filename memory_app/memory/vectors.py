"""In-process vector index over the notes' embeddings: exact cosine with numpy.

The agent keeps embeddings as lists in the documents and has no vector index; reading
every document per query costs seconds at 100k notes. This index keeps one normalised
float32 matrix per embedding dimension in memory and stays in step with MongoDB:

- the first search loads ``note_id``, ``section``, ``embedding``, ``updated_at`` once;
- later searches refresh at most every ``refresh_interval`` seconds (default 1 s): notes
  with ``updated_at`` at or after the newest seen are re-read (new and changed notes),
  and when the collection count disagrees with the index the id list is re-read to drop
  deleted notes. A change is visible to search within about a second.
- Results are fetched with one ``$in`` query; an id that no longer exists is dropped.

A "rebuild" bumps a generation number in a small ``qqweb_meta`` collection beside the
notes (the agent never reads it); every process's index sees the new number on its next
refresh and reads everything again.

A query is only compared with vectors of its own dimension; the others are counted and
reported (the agent silently truncates; we refuse). Where the server offers
``$vectorSearch`` (Atlas, MongoDB 8.2+ with mongot) and an index name is configured, it is
used instead, falling back to this index when the server refuses.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np
from pymongo.errors import OperationFailure, PyMongoError

from .errors import DimensionMismatch, StoreUnavailable

if TYPE_CHECKING:
    from .mongo_store import MongoNotesStore

META_COLLECTION = "qqweb_meta"
RESULT_FIELDS = {"_id": 0, "note_id": 1, "content": 1, "section": 1, "importance": 1}


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
        self, store: MongoNotesStore, refresh_interval: float = 1.0, vector_search_index: str = ""
    ) -> None:
        self._store = store
        self._refresh_interval = refresh_interval
        self._vector_search_index = vector_search_index
        self._lock = threading.RLock()
        self._where: dict[str, tuple[int, int]] = {}  # note_id -> (dim, row)
        self._blocks: dict[int, _Block] = {}
        self._newest: datetime | None = None
        self._checked_at = 0.0
        self._loaded = False
        self._dirty = False
        self._known_empty: set[str] = set()  # notes whose embedding is empty
        self._seen_generation = 0

    # --- keeping in step -----------------------------------------------------------------

    def refresh(self, force: bool = False, reload: bool = False) -> None:
        """Catch up with MongoDB (at most every ``refresh_interval`` unless ``force``);
        ``reload`` throws the index away and reads every vector again."""
        if self._store is None:  # a purely in-memory index (add_vectors)
            return
        with self._lock:
            if reload:
                self._loaded = False
                self._bump_generation()
            if (
                not force
                and self._loaded
                and time.monotonic() - self._checked_at < self._refresh_interval
            ):
                return
            try:
                generation = self._generation()
                if not self._loaded or generation != self._seen_generation:
                    self._load_all()
                    self._seen_generation = generation
                else:
                    self._load_changes()
            except PyMongoError as e:
                raise StoreUnavailable("mongodb", str(e)) from e
            self._checked_at = time.monotonic()

    def _meta(self) -> Any:
        assert self._store is not None
        return self._store.collection.database[META_COLLECTION]

    def _generation(self) -> int:
        doc = self._meta().find_one({"_id": f"vector_index:{self._store_name()}"})
        return int(doc.get("generation", 0)) if doc else 0

    def _bump_generation(self) -> None:
        self._meta().update_one(
            {"_id": f"vector_index:{self._store_name()}"}, {"$inc": {"generation": 1}}, upsert=True
        )

    def _store_name(self) -> str:
        assert self._store is not None
        return str(self._store.collection.name)

    def _read(self, query: dict[str, Any]) -> None:
        projection = {"_id": 0, "note_id": 1, "section": 1, "embedding": 1, "updated_at": 1}
        for doc in self._store.collection.find(query, projection).batch_size(2000):
            self._put(doc)

    def _load_all(self) -> None:
        self._where, self._blocks, self._newest = {}, {}, None
        self._known_empty = set()
        self._read({})
        self._loaded = True
        self._freeze()

    def _load_changes(self) -> None:
        query = {"updated_at": {"$gte": self._newest}} if self._newest else {}
        self._read(query)
        count = self._store.collection.estimated_document_count()
        if count != self._indexed_or_empty_count():
            live = {d["note_id"] for d in self._store.collection.find({}, {"_id": 0, "note_id": 1})}
            for note_id in [i for i in self._where if i not in live]:
                self._drop(note_id)
            self._known_empty &= live
        if self._dirty:
            self._freeze()

    def _indexed_or_empty_count(self) -> int:
        return len(self._where) + len(self._known_empty)

    def _put(self, doc: dict[str, Any]) -> None:
        note_id = str(doc["note_id"])
        updated = doc.get("updated_at")
        if isinstance(updated, datetime) and (self._newest is None or updated > self._newest):
            self._newest = updated
        vector = doc.get("embedding") or []
        if note_id in self._where:
            self._drop(note_id)
        self._known_empty.discard(note_id)
        if not isinstance(vector, list) or not vector:
            self._known_empty.add(note_id)
            return
        dim = len(vector)
        block = self._blocks.setdefault(dim, _Block(dim))
        block.ids.append(note_id)
        block.sections.append(doc.get("section"))
        block.rows.append(np.asarray(vector, dtype=np.float32))
        self._where[note_id] = (dim, len(block.ids) - 1)
        self._dirty = True

    def _drop(self, note_id: str) -> None:
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
        if min_score is not None:
            hits = [(i, s) for i, s in hits if s >= min_score]
        return SearchResult(hits, len(block.ids), others)

    def search_notes(
        self, query: list[float], *, limit: int = 5, section: str | None = None
    ) -> list[dict[str, Any]]:
        """The seed's ``search_similar`` shape, documents fetched with one ``$in``."""
        if self._vector_search_index:
            try:
                return self._atlas_search(query, limit, section)
            except OperationFailure:
                pass  # this server has no $vectorSearch: use the in-process index
        result = self.search(query, limit=limit, section=section)
        scores = dict(result.hits)
        docs = self._store.collection.find({"note_id": {"$in": list(scores)}}, RESULT_FIELDS)
        found = {d["note_id"]: d for d in docs}
        gone = [i for i in scores if i not in found]
        if gone:  # deleted since the last refresh: forget them now
            with self._lock:
                for note_id in gone:
                    if note_id in self._where:
                        self._drop(note_id)
                self._freeze()
        return [{**found[i], "score": round(s, 6)} for i, s in result.hits if i in found]

    def _atlas_search(
        self, query: list[float], limit: int, section: str | None
    ) -> list[dict[str, Any]]:
        stage: dict[str, Any] = {
            "index": self._vector_search_index,
            "path": "embedding",
            "queryVector": [float(x) for x in query],
            "numCandidates": max(100, limit * 20),
            "limit": limit,
        }
        if section:
            stage["filter"] = {"section": section}
        pipeline = [
            {"$vectorSearch": stage},
            {"$project": {**RESULT_FIELDS, "score": {"$meta": "vectorSearchScore"}}},
        ]
        return list(self._store.collection.aggregate(pipeline))
