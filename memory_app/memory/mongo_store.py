"""MongoNotesStore: the agent's ``notes`` collection, read and written the agent's way.

Follows the seed API (``qq.memory.mongo_store.MongoNotesStore``) so code written for the
agent's library works against this one. The store only translates between MongoDB and
Python values: it takes its client as an argument (or builds one lazily from ``uri``),
does no I/O in ``__init__`` and creates indexes only in :meth:`ensure_indexes`.

Writes are targeted (``$set`` / ``$setOnInsert`` / ``$inc`` / ``$push`` keyed on
``note_id``), never whole-document replaces: the agent bumps ``access_count`` and pushes
``source_history`` concurrently. Dates are naive UTC ``datetime`` values, which pymongo
stores as BSON dates.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from pymongo import ASCENDING, DESCENDING, MongoClient, UpdateOne
from pymongo.collection import Collection
from pymongo.errors import DuplicateKeyError, PyMongoError

from .constants import (
    DEFAULT_COLLECTION,
    DEFAULT_DATABASE,
    DEFAULT_DECAY_RATE,
    DEFAULT_IMPORTANCE,
)
from .documents import (
    effective_importance,
    utcnow_naive,
    validate_agent_document,
    validate_importance,
    validate_note_fields,
)
from .errors import StoreUnavailable
from .importance import BASE_FIELD, DECAYED_FIELD, DecayWrite, decay_write_plan
from .listing import LIST_FIELDS, NoteFilter, NotesPage, page_notes

SUMMARY_FIELDS = {
    "_id": 0,
    "note_id": 1,
    "content": 1,
    "section": 1,
    "importance": 1,
    "access_count": 1,
}
FULL_FIELDS = {"_id": 0}
DECAY_FIELDS = {
    "_id": 0,
    "note_id": 1,
    "importance": 1,
    "access_count": 1,
    "created_at": 1,
    "last_accessed": 1,
    "decay_rate": 1,
    "updated_at": 1,
    BASE_FIELD: 1,
    DECAYED_FIELD: 1,
}


@dataclass
class DecayReport:
    scanned: int = 0
    changed: int = 0  # notes whose importance the pass would change
    written: int = 0  # of those, written (a note the agent changed meanwhile is skipped)
    sample: list[tuple[str, float, float]] = field(default_factory=list)


class MongoNotesStore:
    def __init__(
        self,
        uri: str | None = None,
        database: str = DEFAULT_DATABASE,
        collection: str = DEFAULT_COLLECTION,
        *,
        client: MongoClient[dict[str, Any]] | None = None,
        timeout_ms: int = 5000,
    ) -> None:
        self._uri = uri or "mongodb://localhost:27017"
        self._database_name = database
        self._collection_name = collection
        self._client = client
        self._timeout_ms = timeout_ms
        self.vector_index: Any = None  # set by the caller, or built on first search

    # --- plumbing ------------------------------------------------------------------------

    @property
    def client(self) -> MongoClient[dict[str, Any]]:
        if self._client is None:
            self._client = MongoClient(
                self._uri, serverSelectionTimeoutMS=self._timeout_ms, tz_aware=False
            )
        return self._client

    @property
    def collection(self) -> Collection[dict[str, Any]]:
        return self.client[self._database_name][self._collection_name]

    def _unavailable(self, error: PyMongoError) -> StoreUnavailable:
        return StoreUnavailable("mongodb", str(error).split(", Timeout")[0])

    def ping(self) -> float:
        """Round-trip time of a ``ping`` in milliseconds; raises StoreUnavailable."""
        started = time.perf_counter()
        try:
            self.client[self._database_name].command("ping")
        except PyMongoError as e:
            raise self._unavailable(e) from e
        return (time.perf_counter() - started) * 1000

    def ensure_indexes(self, dashboard: bool = True) -> list[str]:
        """The agent's indexes (and, with ``dashboard``, the list's compound ones), created
        explicitly, never as a side effect of a read."""
        specs: list[tuple[list[tuple[str, int]], dict[str, Any]]] = [
            ([("note_id", ASCENDING)], {"unique": True}),
            ([("section", ASCENDING)], {}),
            ([("updated_at", DESCENDING)], {}),
            ([("importance", DESCENDING)], {}),
            ([("last_accessed", DESCENDING)], {}),
            ([("source.file_path", ASCENDING)], {"sparse": True}),
            ([("source.source_type", ASCENDING)], {"sparse": True}),
            ([("source.source_id", ASCENDING)], {"sparse": True}),
        ]
        if dashboard:
            # (sort field, note_id) pairs: the notes list's keyset pages use them, so a page
            # at any depth reads one index range. Ours, not the agent's: named qqweb_*.
            for field in (
                "importance",
                "created_at",
                "updated_at",
                "last_accessed",
                "access_count",
            ):
                specs.append(
                    (
                        [(field, DESCENDING), ("note_id", DESCENDING)],
                        {"name": f"qqweb_{field}_note_id"},
                    )
                )
        try:
            return [self.collection.create_index(keys, **opts) for keys, opts in specs]
        except PyMongoError as e:
            raise self._unavailable(e) from e

    # --- CRUD (seed API) -----------------------------------------------------------------

    def upsert_note(
        self,
        note_id: str,
        content: str,
        embedding: list[float],
        section: str,
        metadata: dict[str, Any] | None = None,
        importance: float = DEFAULT_IMPORTANCE,
        decay_rate: float = DEFAULT_DECAY_RATE,
        source: dict[str, Any] | None = None,
    ) -> None:
        validate_note_fields(
            note_id=note_id,
            content=content,
            section=section,
            importance=importance,
            embedding=embedding,
        )
        now = utcnow_naive()
        update: dict[str, Any] = {
            "$set": {
                "content": content,
                "embedding": [float(x) for x in embedding],
                "section": section,
                "metadata": dict(metadata or {}),
                "importance": float(importance),
                "decay_rate": float(decay_rate),
                "updated_at": now,
            },
            "$setOnInsert": {
                "note_id": note_id,
                "created_at": now,
                "access_count": 0,
                "last_accessed": None,
            },
        }
        if source:
            update["$set"]["source"] = dict(source)
            update["$push"] = {"source_history": dict(source)}
        try:
            self.collection.update_one({"note_id": note_id}, update, upsert=True)
        except PyMongoError as e:
            raise self._unavailable(e) from e

    def get_note(self, note_id: str) -> dict[str, Any] | None:
        try:
            return self.collection.find_one({"note_id": str(note_id)}, SUMMARY_FIELDS)
        except PyMongoError as e:
            raise self._unavailable(e) from e

    def get_full_note(self, note_id: str) -> dict[str, Any] | None:
        try:
            return self.collection.find_one({"note_id": str(note_id)}, FULL_FIELDS)
        except PyMongoError as e:
            raise self._unavailable(e) from e

    def delete_note(self, note_id: str) -> bool:
        try:
            return self.collection.delete_one({"note_id": str(note_id)}).deleted_count == 1
        except PyMongoError as e:
            raise self._unavailable(e) from e

    def clear_all(self) -> int:
        try:
            return int(self.collection.delete_many({}).deleted_count)
        except PyMongoError as e:
            raise self._unavailable(e) from e

    # --- reads (seed API) -----------------------------------------------------------------

    def _find(
        self,
        query: dict[str, Any],
        sort: list[tuple[str, int]],
        limit: int,
        projection: dict[str, Any] | None = None,
    ) -> list[dict[str, Any]]:
        try:
            cursor = self.collection.find(query, projection or LIST_FIELDS).sort(sort)
            return list(cursor.limit(max(0, int(limit))))
        except PyMongoError as e:
            raise self._unavailable(e) from e

    def get_recent_notes(self, limit: int = 10, section: str | None = None) -> list[dict[str, Any]]:
        query = {"section": section} if section else {}
        return self._find(query, [("updated_at", DESCENDING), ("note_id", DESCENDING)], limit)

    def get_by_importance_range(
        self, min_importance: float = 0.0, max_importance: float = 1.0, limit: int = 20
    ) -> list[dict[str, Any]]:
        query = {"importance": {"$gte": float(min_importance), "$lte": float(max_importance)}}
        return self._find(query, [("importance", DESCENDING), ("note_id", DESCENDING)], limit)

    def get_stale_notes(self, days_threshold: int = 30, limit: int = 20) -> list[dict[str, Any]]:
        """Notes not accessed within ``days_threshold`` days (never-accessed ones count from
        their creation), stalest first."""
        cutoff = utcnow_naive() - timedelta(days=int(days_threshold))
        query = {
            "$or": [
                {"last_accessed": {"$lt": cutoff}},
                {"last_accessed": None, "created_at": {"$lt": cutoff}},
            ]
        }
        return self._find(query, [("last_accessed", ASCENDING), ("created_at", ASCENDING)], limit)

    def find_by_source_file(self, file_path: str, limit: int = 20) -> list[dict[str, Any]]:
        query = {
            "$or": [
                {"source.file_path": str(file_path)},
                {"source_history.file_path": str(file_path)},
            ]
        }
        return self._find(query, [("updated_at", DESCENDING)], limit)

    def search_similar(
        self, query_embedding: list[float], limit: int = 5, section: str | None = None
    ) -> list[dict[str, Any]]:
        """Cosine search, as the seed: ``[{note_id, content, section, importance, score}]``.
        Served by the vector index attached to this store (see ``vectors.py``)."""
        from .vectors import VectorIndex

        if self.vector_index is None:
            self.vector_index = VectorIndex(self)
        return self.vector_index.search_notes(query_embedding, limit=limit, section=section)

    # --- writes (seed API) ----------------------------------------------------------------

    def increment_access(self, note_id: str) -> bool:
        update = {"$inc": {"access_count": 1}, "$set": {"last_accessed": utcnow_naive()}}
        return self._update_one(note_id, update)

    def update_importance(self, note_id: str, importance: float) -> bool:
        validate_importance(importance)
        update = {"$set": {"importance": float(importance), "updated_at": utcnow_naive()}}
        return self._update_one(note_id, update)

    def bulk_update_importance(self, updates: list[dict[str, Any]]) -> int:
        now = utcnow_naive()
        ops = []
        for item in updates:
            validate_importance(item.get("importance"))
            ops.append(
                UpdateOne(
                    {"note_id": str(item["note_id"])},
                    {"$set": {"importance": float(item["importance"]), "updated_at": now}},
                )
            )
        if not ops:
            return 0
        try:
            return int(self.collection.bulk_write(ops, ordered=False).modified_count)
        except PyMongoError as e:
            raise self._unavailable(e) from e

    def append_source_history(
        self, note_id: str, source: dict[str, Any], boost_importance: float = 0.0
    ) -> bool:
        """``$push`` onto ``source_history``; a boost raises importance, capped at 1, in the
        same atomic update (an update pipeline)."""
        entry = dict(source)
        stage: dict[str, Any] = {
            "source_history": {
                "$concatArrays": [{"$ifNull": ["$source_history", []]}, [{"$literal": entry}]]
            },
        }
        if boost_importance:
            stage["importance"] = {
                "$min": [
                    1.0,
                    {"$add": [{"$ifNull": ["$importance", 0.5]}, float(boost_importance)]},
                ]
            }
            stage["updated_at"] = utcnow_naive()
        return self._update_one(note_id, [{"$set": stage}])

    def _update_one(self, note_id: str, update: Any) -> bool:
        try:
            return self.collection.update_one({"note_id": str(note_id)}, update).matched_count == 1
        except PyMongoError as e:
            raise self._unavailable(e) from e

    # --- decay that does not compound ---------------------------------------------------

    def decay_batches(
        self, now: datetime, batch_size: int = 1000
    ) -> Iterator[tuple[int, list[tuple[dict[str, Any], DecayWrite]]]]:
        """Walk every note once; yield ``(notes scanned so far, [(doc, plan), ...])`` for
        the notes whose importance a decay pass would change, ``batch_size`` at a time."""
        batch: list[tuple[dict[str, Any], DecayWrite]] = []
        scanned = 0
        try:
            for doc in self.collection.find({}, DECAY_FIELDS).batch_size(batch_size):
                scanned += 1
                plan = decay_write_plan(doc, now)
                if plan.changes:
                    batch.append((doc, plan))
                if len(batch) >= batch_size:
                    yield scanned, batch
                    batch = []
        except PyMongoError as e:
            raise self._unavailable(e) from e
        yield scanned, batch

    def apply_decay(self, plans: list[DecayWrite], now: datetime) -> int:
        """Write planned values, each a compare-and-set on the importance that was read
        (a value the agent wrote meanwhile wins). Returns how many were written."""
        if not plans:
            return 0
        ops = [
            UpdateOne(
                {"note_id": plan.note_id, "importance": plan.expected_importance},
                {
                    "$set": {
                        "importance": plan.new_importance,
                        BASE_FIELD: plan.base,
                        DECAYED_FIELD: plan.new_importance,
                        "updated_at": now,
                    }
                },
            )
            for plan in plans
        ]
        try:
            return int(self.collection.bulk_write(ops, ordered=False).modified_count)
        except PyMongoError as e:
            raise self._unavailable(e) from e

    def decay_pass(
        self, now: datetime | None = None, *, dry_run: bool = False, batch_size: int = 1000
    ) -> DecayReport:
        """Write each note's effective importance back, the way that never compounds (see
        ``importance.decay_write_plan``)."""
        now = now or utcnow_naive()
        report = DecayReport()
        for scanned, batch in self.decay_batches(now, batch_size):
            report.scanned = scanned
            report.changed += len(batch)
            report.sample.extend(
                (p.note_id, p.expected_importance, p.new_importance)
                for _, p in batch[: 10 - len(report.sample)]
            )
            if not dry_run:
                report.written += self.apply_decay([plan for _, plan in batch], now)
        return report

    # --- the dashboard's list -------------------------------------------------------------

    def list_notes(
        self,
        flt: NoteFilter | None = None,
        *,
        sort: str = "updated",
        direction: str = "desc",
        cursor: str | None = None,
        limit: int = 50,
        now: datetime | None = None,
        max_scan: int = 5000,
    ) -> NotesPage:
        """One page in ``(sort field, note_id)`` order after ``cursor``. Filters on the
        effective (decayed) importance are applied while reading, scanning at most
        ``max_scan`` documents; the cursor then marks where the scan stopped."""
        try:
            return page_notes(
                self.collection,
                flt or NoteFilter(),
                sort=sort,
                direction=direction,
                cursor=cursor,
                limit=limit,
                now=now or utcnow_naive(),
                max_scan=max_scan,
            )
        except PyMongoError as e:
            raise self._unavailable(e) from e

    def importance_histogram(self, bins: int = 10, section: str | None = None) -> list[int]:
        """Counts of stored importance in ``bins`` equal buckets over [0, 1], counted by
        the database (``$bucket``)."""
        bins = max(1, min(int(bins), 100))
        bounds = [round(i / bins, 6) for i in range(bins)] + [1.000001]
        pipeline: list[dict[str, Any]] = []
        if section:
            pipeline.append({"$match": {"section": section}})
        pipeline.append(
            {
                "$bucket": {
                    "groupBy": "$importance",
                    "boundaries": bounds,
                    "default": "other",
                    "output": {"n": {"$sum": 1}},
                }
            }
        )
        counts = [0] * bins
        try:
            for row in self.collection.aggregate(pipeline):
                if row["_id"] != "other":
                    counts[bounds.index(row["_id"])] = int(row["n"])
        except PyMongoError as e:
            raise self._unavailable(e) from e
        return counts

    def stored_dimensions(self) -> dict[int, int]:
        """How many notes have an embedding of each length (0 = empty or missing)."""
        pipeline = [
            {"$group": {"_id": {"$size": {"$ifNull": ["$embedding", []]}}, "n": {"$sum": 1}}}
        ]
        try:
            return {int(r["_id"]): int(r["n"]) for r in self.collection.aggregate(pipeline)}
        except PyMongoError as e:
            raise self._unavailable(e) from e

    def collection_stats(self) -> dict[str, Any]:
        dims = self.stored_dimensions()
        return {
            "total": sum(dims.values()),
            "by_section": self.count_by_section(),
            "dimensions": {d: n for d, n in dims.items() if d},
            "without_embedding": dims.get(0, 0),
        }

    # --- counts ---------------------------------------------------------------------------

    def count(self) -> int:
        """Total number of notes, from collection metadata (no scan)."""
        try:
            return int(self.collection.estimated_document_count())
        except PyMongoError as e:
            raise self._unavailable(e) from e

    def count_by_section(self) -> dict[str | None, int]:
        """Notes per section (``None`` for notes with no section), grouped in the database."""
        pipeline = [{"$group": {"_id": "$section", "n": {"$sum": 1}}}]
        try:
            return {row["_id"]: int(row["n"]) for row in self.collection.aggregate(pipeline)}
        except PyMongoError as e:
            raise self._unavailable(e) from e

    # --- planting agent-shaped documents -------------------------------------------------

    def insert_agent_documents(self, documents: Iterable[Mapping[str, Any]]) -> int:
        """Insert complete documents in the agent's format (demo data, imports).

        Every document is checked against the contract first; an existing ``note_id`` is
        left untouched (the insert is an upsert with ``$setOnInsert`` only), so running
        it twice inserts nothing the second time.
        """
        ops = []
        for doc in documents:
            validate_agent_document(doc)
            ops.append(
                UpdateOne({"note_id": doc["note_id"]}, {"$setOnInsert": dict(doc)}, upsert=True)
            )
        if not ops:
            return 0
        try:
            result = self.collection.bulk_write(ops, ordered=False)
        except DuplicateKeyError:
            return 0
        except PyMongoError as e:
            raise self._unavailable(e) from e
        return int(result.upserted_count)


__all__ = [
    "DecayReport",
    "MongoNotesStore",
    "NotesPage",
    "effective_importance",
    "utcnow_naive",
    "validate_agent_document",
    "validate_importance",
    "validate_note_fields",
]
