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
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from pymongo import ASCENDING, DESCENDING, MongoClient, UpdateOne
from pymongo.collection import Collection
from pymongo.errors import DuplicateKeyError, PyMongoError

from .constants import (
    DEFAULT_COLLECTION,
    DEFAULT_DATABASE,
    DEFAULT_DECAY_RATE,
    DEFAULT_IMPORTANCE,
    SECTIONS,
)
from .errors import InvalidNote, StoreUnavailable

SUMMARY_FIELDS = {
    "_id": 0,
    "note_id": 1,
    "content": 1,
    "section": 1,
    "importance": 1,
    "access_count": 1,
}
FULL_FIELDS = {"_id": 0}


def utcnow_naive() -> datetime:
    """The agent's dates: UTC, without tzinfo (pymongo writes them as BSON dates)."""
    return datetime.now(UTC).replace(tzinfo=None)


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

    def ensure_indexes(self) -> list[str]:
        """The agent's indexes, created explicitly (never as a side effect of a read)."""
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


def validate_note_fields(
    *,
    note_id: str,
    content: str,
    section: str | None,
    importance: float,
    embedding: list[float] | None,
) -> None:
    if not isinstance(note_id, str) or not note_id.strip():
        raise InvalidNote("note_id", "must be a non-empty string")
    if not isinstance(content, str) or not content.strip():
        raise InvalidNote("content", "must be a non-empty string")
    if section is not None and section not in SECTIONS:
        raise InvalidNote("section", f"must be one of {', '.join(SECTIONS)}")
    if isinstance(importance, bool) or not isinstance(importance, int | float):
        raise InvalidNote("importance", "must be a number")
    if not 0.0 <= float(importance) <= 1.0:
        raise InvalidNote("importance", "must be between 0 and 1")
    if embedding is not None and not isinstance(embedding, list):
        raise InvalidNote("embedding", "must be a list of floats (may be empty)")


def validate_agent_document(doc: Mapping[str, Any]) -> None:
    validate_note_fields(
        note_id=doc.get("note_id", ""),
        content=doc.get("content", ""),
        section=doc.get("section"),
        importance=doc.get("importance", DEFAULT_IMPORTANCE),
        embedding=doc.get("embedding", []),
    )
    for field in ("created_at", "updated_at"):
        value = doc.get(field)
        if not isinstance(value, datetime) or value.tzinfo is not None:
            raise InvalidNote(field, "must be a naive UTC datetime")
    last = doc.get("last_accessed")
    if last is not None and (not isinstance(last, datetime) or last.tzinfo is not None):
        raise InvalidNote("last_accessed", "must be a naive UTC datetime or None")
