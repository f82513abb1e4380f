"""The named writes qqweb's services make. Each one is targeted (never a whole-document
replace) and guarded: a compare-and-set on what the caller read, so a change the agent
made in between wins and the caller is told."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from pymongo import UpdateOne
from pymongo.errors import DuplicateKeyError

from memory_app.notes.lib.documents import utcnow_naive, validate_agent_document
from memory_app.notes.lib.domain import Note
from memory_app.notes.lib.mongo.base import WRITTEN_AT_FIELD, MongoBase

MERGED_IDS_FIELD = "qqweb_merged_ids"  # secondaries already folded into this note


def merged_ids(note: Note) -> list[str]:
    """The secondaries a merge of ours already folded into ``note``."""
    found = note.extra.get(MERGED_IDS_FIELD)
    return [str(i) for i in found] if isinstance(found, list) else []


class CuratorWrites(MongoBase):
    def update_if_unchanged(
        self, note_id: str, expected_updated_at: datetime | None, fields: Mapping[str, Any]
    ) -> datetime | None:
        """``$set`` ``fields`` and a new ``updated_at`` while the note's ``updated_at`` is
        ``expected_updated_at``. Returns the new ``updated_at``, or None when the note
        changed (or went) since it was read."""
        now = utcnow_naive()
        with self._guard():
            result = self.collection.update_one(
                {"note_id": str(note_id), "updated_at": expected_updated_at},
                {"$set": {**fields, "updated_at": now}},
            )
        if result.matched_count != 1:
            return None
        self._notify([note_id])
        return now

    def delete_if_unchanged(self, note_id: str, expected_updated_at: Any = ...) -> bool:
        """Delete the note while its ``updated_at`` is the expected one (any, when not
        given). False when it changed or is gone."""
        guard: dict[str, Any] = {"note_id": str(note_id)}
        if expected_updated_at is not ...:
            guard["updated_at"] = expected_updated_at
        with self._guard():
            deleted = self.collection.delete_one(guard).deleted_count == 1
        if deleted:
            self._notify([note_id])
        return deleted

    def insert_agent_documents(self, documents: Iterable[Mapping[str, Any]]) -> int:
        """Insert complete documents in the agent's format (demo data, imports, the exact
        reinsert of an undo).

        Every document is checked against the contract first; an existing ``note_id`` is
        left untouched (the insert is an upsert with ``$setOnInsert`` only), so running
        it twice inserts nothing the second time. Each inserted note carries
        ``qqweb_written_at`` (when), for the incremental dedup scan.
        """
        ops = []
        ids = []
        now = utcnow_naive()
        for doc in documents:
            validate_agent_document(doc)
            ids.append(str(doc["note_id"]))
            inserted = {**doc, WRITTEN_AT_FIELD: now}
            ops.append(
                UpdateOne({"note_id": doc["note_id"]}, {"$setOnInsert": inserted}, upsert=True)
            )
        if not ops:
            return 0
        try:
            with self._guard():
                self.collection.bulk_write(ops, ordered=False)
        except DuplicateKeyError:  # a racing insert of the same id: it is there
            pass
        self._notify(ids)
        return self._count_written_at(ids, now)

    def _count_written_at(self, note_ids: list[str], written_at: datetime) -> int:
        """How many of ``note_ids`` this call inserted: those carrying its own
        ``qqweb_written_at``. The server's ``upserted_count`` is not used: a bulk write
        the driver retried after a lost reply counts 0 for the notes its first try
        inserted (seen under load)."""
        with self._guard():
            return int(
                self.collection.count_documents(
                    {"note_id": {"$in": note_ids}, WRITTEN_AT_FIELD: written_at}
                )
            )

    def merge_into_primary(
        self,
        primary_id: str,
        secondary_id: str,
        fields: Mapping[str, Any],
        *,
        inc_access: int,
        pushed_source: Mapping[str, Any] | None,
    ) -> bool:
        """The primary's half of a merge, once: guarded by ``qqweb_merged_ids`` so a retry
        after a crash does not add the access count or the source twice."""
        update: dict[str, Any] = {
            "$set": {**fields, "updated_at": utcnow_naive()},
            "$inc": {"access_count": int(inc_access)},
            "$addToSet": {MERGED_IDS_FIELD: secondary_id},
        }
        if pushed_source:
            update["$push"] = {"source_history": dict(pushed_source)}
        with self._guard():
            result = self.collection.update_one(
                {"note_id": primary_id, MERGED_IDS_FIELD: {"$ne": secondary_id}}, update
            )
        self._notify([primary_id])
        return result.modified_count == 1

    def unmerge_primary(
        self,
        primary_id: str,
        secondary_id: str,
        fields: Mapping[str, Any],
        *,
        inc_access: int,
        source_history: list[Any] | None,
    ) -> bool:
        """Undo of :meth:`merge_into_primary`: the primary's fields as they were, the
        access count taken back, ``source_history`` as given (None: the note had none, so
        it is removed), and the secondary no longer listed as merged."""
        update: dict[str, Any] = {
            "$set": {**fields, "updated_at": utcnow_naive()},
            "$inc": {"access_count": -int(inc_access)},
            "$pull": {MERGED_IDS_FIELD: secondary_id},
        }
        if source_history is None:
            update["$unset"] = {"source_history": ""}
        else:
            update["$set"]["source_history"] = source_history
        with self._guard():
            result = self.collection.update_one({"note_id": primary_id}, update)
        self._notify([primary_id])
        return result.matched_count == 1
