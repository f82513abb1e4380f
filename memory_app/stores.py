"""Wiring: the memory library's stores built from settings and the process-wide clients.

Building a store is cheap (no I/O), so each call builds a fresh one from the current
settings; the expensive part, the client, is shared.
"""

from __future__ import annotations

from django.conf import settings

from memory_app.memory import ArchiveManager, CoreNotesManager, MongoNotesStore, NotesManager
from qqweb.clients import mongo_client


def notes_store() -> MongoNotesStore:
    return MongoNotesStore(
        database=settings.QQ_MONGO_DB,
        collection=settings.QQ_MONGO_COLLECTION,
        client=mongo_client(),
    )


def archive_manager() -> ArchiveManager:
    return ArchiveManager(memory_dir=settings.MEMORY_DIR)


def core_notes() -> CoreNotesManager:
    return CoreNotesManager(memory_dir=settings.MEMORY_DIR)


def working_notes() -> NotesManager:
    return NotesManager(memory_dir=settings.MEMORY_DIR)
