"""Wiring: the memory library's stores built from settings and the process-wide clients.

Building a store is cheap (no I/O), so each call builds a fresh one from the current
settings; the expensive part, the client, is shared.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from django.conf import settings

from memory_app.notes.lib import (
    ArchiveManager,
    CoreNotesManager,
    ImportanceScorer,
    MongoNotesStore,
    NoteDeduplicator,
    NotesManager,
)
from memory_app.notes.lib.backup_files import MemoryFiles
from memory_app.notes.lib.replica import segments as vector_segments
from memory_app.notes.lib.replica.index import VectorIndex
from qqweb.lib.clients import embedder, mongo_client


def notes_store() -> MongoNotesStore:
    store = MongoNotesStore(
        database=settings.QQ_MONGO_DB,
        collection=settings.QQ_MONGO_COLLECTION,
        client=mongo_client(),
    )
    store.vector_index = _vector_index_for(store)
    return store


def importance_scorer() -> ImportanceScorer:
    return ImportanceScorer(
        core_threshold=settings.QQ_CORE_THRESHOLD,
        archive_threshold=settings.QQ_ARCHIVE_THRESHOLD,
        base_decay_rate=settings.QQ_BASE_DECAY_RATE,
        min_retrieval_importance=settings.QQ_MIN_RETRIEVAL_IMPORTANCE,
    )


def archive_manager() -> ArchiveManager:
    return ArchiveManager(
        memory_dir=settings.MEMORY_DIR, mongo_store=notes_store(), embedder=embedder()
    )


def deduplicator() -> NoteDeduplicator:
    return NoteDeduplicator(
        notes_store(),
        embedder(),
        threshold=settings.QQ_DEDUP_THRESHOLD,
        max_working_notes=settings.QQ_MAX_WORKING_NOTES,
        llm_url=settings.QQ_LLM_URL,
        llm_model=settings.QQ_LLM_MODEL,
        llm_api_key=settings.QQ_LLM_API_KEY,
    )


def core_notes() -> CoreNotesManager:
    return CoreNotesManager(memory_dir=settings.MEMORY_DIR)


def working_notes() -> NotesManager:
    return NotesManager(memory_dir=settings.MEMORY_DIR)


# How long a search (or a note page's similar notes) waits for this process's vector index
# still loading before it answers "the search index is loading (N of M notes)": long enough
# for a process opening its snapshot (about a second) to answer the first request itself,
# short enough that nobody stares at a spinner; the 503 says when to try again.
VECTOR_READY_TIMEOUT_S = 3.0

_indexes: dict[tuple[object, ...], VectorIndex] = {}
_indexes_lock = threading.Lock()


def _vector_index_for(store: MongoNotesStore) -> VectorIndex:
    """One in-process vector index per process and collection, shared by every store."""
    key = (os.getpid(), settings.MONGODB_URI, settings.QQ_MONGO_DB, settings.QQ_MONGO_COLLECTION)
    with _indexes_lock:
        if key not in _indexes:
            _indexes[key] = VectorIndex(
                store,
                vector_search_index=settings.QQ_VECTOR_SEARCH_INDEX,
                directory=Path(settings.QQ_VECTOR_DIR)
                / f"{settings.QQ_MONGO_DB}.{settings.QQ_MONGO_COLLECTION}",
                exact_below=vector_segments.EXACT_BELOW,
                ready_timeout=VECTOR_READY_TIMEOUT_S,
            )
        return _indexes[key]


def vector_index_warm_up() -> None:
    """Open this process's vector index in the background now (QQ_VECTOR_WARM_UP), so no
    user waits for it: from its saved snapshot in a second or so, then catching up with
    MongoDB; without a snapshot, reading every vector (a search meanwhile says how far it
    got). Called when a web process imports the WSGI application and when a Celery worker
    (or a prefork pool's child, after the fork) starts; returns at once."""
    if settings.QQ_VECTOR_WARM_UP:
        notes_store().vector_index.start()


def vector_indexes_close() -> None:
    """Stop every vector index's change-stream thread and forget the indexes (tests,
    process shutdown)."""
    with _indexes_lock:
        for index in _indexes.values():
            index.close()
        _indexes.clear()


def memory_files() -> MemoryFiles:
    """The memory directory's files, for export and import."""
    return MemoryFiles(settings.MEMORY_DIR)
