"""The seed API of the agent's ``qq.memory.mongo_store.MongoNotesStore``: the methods
agent code calls, with the agent's signatures and return shapes (plain documents)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from pymongo import ASCENDING, DESCENDING, UpdateOne

from memory_app.notes.lib.constants import DEFAULT_DECAY_RATE, DEFAULT_IMPORTANCE
from memory_app.notes.lib.documents import (
    utcnow_naive,
    validate_importance,
    validate_note_fields,
)
from memory_app.notes.lib.domain import Note
from memory_app.notes.lib.listing import LIST_FIELDS
from memory_app.notes.lib.mongo.backup import BackupAccess
from memory_app.notes.lib.mongo.base import MongoBase
from memory_app.notes.lib.mongo.reads import Reads
from memory_app.notes.lib.mongo.scans import DecayReport, DecayScans
from memory_app.notes.lib.mongo.writes import CuratorWrites
from memory_app.notes.lib.replica.index import VectorIndex

FULL_FIELDS = {"_id": 0}


class MongoNotesStore(BackupAccess, CuratorWrites, Reads, DecayScans, MongoBase):
    """The agent's ``notes`` collection. The seed API is below; the named reads, writes
    and walks the dashboard needs come from the mixins beside this module."""

    def upsert_note(
        self,
        note_id: str,
        content: str,
        embedding: list[float],
        section: str | None = None,
        metadata: dict[str, Any] | None = None,
        importance: float | None = None,
        decay_rate: float | None = None,
        source: dict[str, Any] | None = None,
    ) -> None:
        """Insert or update a note the agent's way (agent code calls this).

        On insert: ``importance`` / ``decay_rate`` default to 0.5 / 0.01, ``created_at``,
        ``access_count`` 0 and ``last_accessed`` null are set, and ``source`` is set
        without a ``source_history``. On an existing note: content, embedding, section,
        metadata and ``updated_at`` are set; ``importance`` and ``decay_rate`` only when
        passed (the agent keeps them otherwise); ``source`` is set and pushed onto
        ``source_history``. ``section=""`` (the agent's restore passes it) is stored as
        null, the contract's "no section". Targeted updates only: the agent's concurrent
        ``$inc`` of ``access_count`` and ``$push`` of ``source_history`` are never lost."""
        validate_note_fields(
            note_id=note_id,
            content=content,
            section=section or None,
            importance=DEFAULT_IMPORTANCE if importance is None else importance,
            embedding=embedding,
        )
        now = utcnow_naive()
        fields: dict[str, Any] = {
            "content": content,
            "embedding": [float(x) for x in embedding],
            "section": section or None,
            "metadata": dict(metadata or {}),
            "updated_at": now,
        }
        if importance is not None:
            fields["importance"] = float(importance)
        if decay_rate is not None:
            fields["decay_rate"] = float(decay_rate)
        if source:
            fields["source"] = dict(source)
        update: dict[str, Any] = {"$set": fields}
        if source:
            update["$push"] = {"source_history": dict(source)}
        inserted = {
            **fields,
            "note_id": note_id,
            "importance": fields.get("importance", DEFAULT_IMPORTANCE),
            "decay_rate": fields.get("decay_rate", DEFAULT_DECAY_RATE),
            "created_at": now,
            "access_count": 0,
            "last_accessed": None,
        }
        with self._guard():
            # Update the note if it exists; else insert it, unless someone inserted it
            # in between (the upsert then matches and changes nothing): update it then.
            while self.collection.update_one({"note_id": note_id}, update).matched_count == 0:
                created = self.collection.update_one(
                    {"note_id": note_id}, {"$setOnInsert": inserted}, upsert=True
                )
                if created.upserted_id is not None:
                    break
        self._notify([note_id])

    def get_note(self, note_id: str) -> dict[str, Any] | None:
        """The whole document, as the agent's ``get_note`` returns it (its ArchiveManager
        reads ``source``, ``source_history`` and ``created_at`` from it); Mongo's own
        ``_id`` is left out."""
        with self._guard():
            return self.collection.find_one({"note_id": str(note_id)}, FULL_FIELDS)

    def get_full_note(self, note_id: str) -> dict[str, Any] | None:
        with self._guard():
            return self.collection.find_one({"note_id": str(note_id)}, FULL_FIELDS)

    def note(self, note_id: str) -> Note | None:
        """The whole note, typed (the seed's ``get_full_note`` as a :class:`Note`)."""
        doc = self.get_full_note(note_id)
        return None if doc is None else Note.from_document(doc)

    def delete_note(self, note_id: str) -> bool:
        with self._guard():
            deleted = self.collection.delete_one({"note_id": str(note_id)}).deleted_count == 1
        self._notify([str(note_id)])
        return deleted

    def clear_all(self) -> int:
        with self._guard():
            deleted = int(self.collection.delete_many({}).deleted_count)
        if self.vector_index is not None:
            self.vector_index.forget_everything()
        return deleted

    # --- reads (seed API) -----------------------------------------------------------------

    def _find(
        self,
        query: dict[str, Any],
        sort: list[tuple[str, int]],
        limit: int,
        projection: dict[str, Any] | None = None,
    ) -> list[dict[str, Any]]:
        with self._guard():
            cursor = self.collection.find(query, projection or LIST_FIELDS).sort(sort)
            return list(cursor.limit(max(0, int(limit))))

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
        Served by the vector index attached to this store (see ``replica/index.py``)."""
        if self.vector_index is None:
            self.vector_index = VectorIndex(self)
        return self.vector_index.search_notes(query_embedding, limit=limit, section=section)

    def similar_notes(
        self, query_embedding: list[float], limit: int = 5, section: str | None = None
    ) -> list[Note]:
        """:meth:`search_similar` typed: each hit a :class:`Note` of the fields the seed's
        hit has (``note_id``, ``content``, ``section``, ``importance``) and its ``score``."""
        return [
            Note.from_document({k: v for k, v in hit.items() if k != "score"}).annotated(
                score=float(hit["score"])
            )
            for hit in self.search_similar(query_embedding, limit=limit, section=section)
        ]

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
        with self._guard():
            return int(self.collection.bulk_write(ops, ordered=False).modified_count)

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
        with self._guard():
            return self.collection.update_one({"note_id": str(note_id)}, update).matched_count == 1

    # --- decay (seed API) ----------------------------------------------------------------

    def decay_pass(
        self, now: datetime | None = None, *, dry_run: bool = False, batch_size: int = 1000
    ) -> DecayReport:
        """Write each note's effective importance back, the way that never compounds (see
        ``importance.decay_write_plan``)."""
        return self.decay_walk(now or utcnow_naive(), dry_run=dry_run, batch_size=batch_size)
