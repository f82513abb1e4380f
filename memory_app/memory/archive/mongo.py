"""The only places the archive code touches MongoDB's ``notes`` collection directly.

Everything else goes through ``MongoNotesStore`` methods; these two are to become named
store methods too (``delete_if_unchanged`` and the archival candidates), and then this
module goes away.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..mongo_store import MongoNotesStore


def delete_if_unchanged(store: MongoNotesStore, doc: Mapping[str, Any]) -> bool:
    """Delete the note ``doc`` was read from, unless the agent changed it since (its
    ``updated_at`` moved). True when it was deleted."""
    guard: dict[str, Any] = {"note_id": str(doc["note_id"])}
    if "updated_at" in doc:
        guard["updated_at"] = doc["updated_at"]
    return bool(store.collection.delete_one(guard).deleted_count == 1)


def archival_candidates(store: MongoNotesStore) -> Iterable[dict[str, Any]]:
    """Every note, without its embedding (the archive does not keep it)."""
    return store.collection.find({}, {"_id": 0, "embedding": 0})
