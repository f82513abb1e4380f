"""The notes store's part in export and import: every document exactly as stored, read
in ``_id`` order through a cursor (a batch at a time, never the whole collection), and
written back with plain inserts that never touch a note already there."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from pymongo.errors import BulkWriteError, PyMongoError

from memory_app.notes.lib.mongo.base import MongoBase
from qqweb.lib.mongo.guard import classify, only_duplicates

# A whole stored document, every field and BSON type as the server gave it (ints of 32
# and 64 bits told apart, ObjectIds, dates to the millisecond). Untyped on purpose: an
# export must keep what the agent wrote even when it does not fit the contract.
StoredNoteDocument = dict[str, Any]


class BackupAccess(MongoBase):
    def export_documents(self, batch_size: int = 500) -> Iterator[StoredNoteDocument]:
        """Every note, in ``_id`` order, fetched ``batch_size`` at a time."""
        with self._guard():
            cursor = self.collection.find({}, sort=[("_id", 1)], batch_size=batch_size)
            try:
                yield from cursor
            finally:
                cursor.close()

    def is_empty(self) -> bool:
        with self._guard():
            return self.collection.find_one({}, {"_id": 1}) is None

    def documents_present(self, documents: Sequence[Mapping[str, Any]]) -> set[str]:
        """The ``note_id`` of each of these documents whose ``note_id`` or ``_id`` the
        collection holds already (an insert would leave it out)."""
        note_ids = [d["note_id"] for d in documents]
        object_ids = [d["_id"] for d in documents if "_id" in d]
        query = {"$or": [{"note_id": {"$in": note_ids}}, {"_id": {"$in": object_ids}}]}
        with self._guard():
            found = list(self.collection.find(query, {"note_id": 1}))
        taken_ids = {doc["_id"] for doc in found}
        taken_note_ids = {doc.get("note_id") for doc in found}
        return {
            str(d["note_id"])
            for d in documents
            if d["note_id"] in taken_note_ids or d.get("_id", ...) in taken_ids
        }

    def insert_exported(self, documents: Sequence[Mapping[str, Any]]) -> int:
        """Insert whole exported documents as they were (``_id`` included). A document
        whose ``_id`` or ``note_id`` is taken is left out, never overwritten: a retry of an
        import that died half-way inserts only what is still missing. Returns how many
        were inserted."""
        if not documents:
            return 0
        docs = [dict(d) for d in documents]
        try:
            inserted = len(self.collection.insert_many(docs, ordered=False).inserted_ids)
        except BulkWriteError as e:
            if not only_duplicates(e.details):
                raise classify(e) from e
            inserted = int(e.details.get("nInserted", 0))
        except PyMongoError as e:
            raise classify(e) from e
        self._notify(str(d.get("note_id")) for d in docs)
        return inserted
