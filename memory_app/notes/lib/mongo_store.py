"""MongoNotesStore: the agent's ``notes`` collection, read and written the agent's way.

Follows the seed API (``qq.memory.mongo_store.MongoNotesStore``) so code written for the
agent's library works against this one; the store itself lives in the ``mongo`` package
beside this module (this module keeps the seed's import path).

Writes are targeted (``$set`` / ``$setOnInsert`` / ``$inc`` / ``$push`` keyed on
``note_id``), never whole-document replaces: the agent bumps ``access_count`` and pushes
``source_history`` concurrently. Dates are naive UTC ``datetime`` values, which pymongo
stores as BSON dates.
"""

from __future__ import annotations

from memory_app.notes.lib.documents import (
    effective_importance,
    utcnow_naive,
    validate_agent_document,
    validate_importance,
    validate_note_fields,
)
from memory_app.notes.lib.listing import NotesPage
from memory_app.notes.lib.mongo import DecayReport, MongoNotesStore

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
