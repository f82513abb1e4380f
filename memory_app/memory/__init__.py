"""The memory library: framework-free (no Django), laid out like the agent's ``qq.memory``.

Django-side code composes it in ``memory_app.stores`` (wiring from settings),
``memory_app.selectors`` (reads) and ``memory_app.services`` (audited writes).
"""

from memory_app.memory.archive import ArchivedNote, ArchiveManager, RestoreConflict
from memory_app.memory.deduplication import ConsolidationReport, DuplicatePair, NoteDeduplicator
from memory_app.memory.embeddings import (
    Embedder,
    HashingEmbedder,
    OpenAIEmbedder,
    SentenceTransformerEmbedder,
)
from memory_app.memory.errors import (
    DimensionMismatch,
    EmbeddingDimensionConflict,
    InvalidNote,
    MemoryLibraryError,
    ModelLoading,
    NoteNotFound,
    StoreError,
    StoreUnavailable,
)
from memory_app.memory.importance import ImportanceScorer, ScoredNote
from memory_app.memory.markdown_notes import CoreNotesManager, NotesManager
from memory_app.memory.mongo_store import MongoNotesStore

__all__ = [
    "ArchiveManager",
    "ArchivedNote",
    "ConsolidationReport",
    "CoreNotesManager",
    "DimensionMismatch",
    "DuplicatePair",
    "Embedder",
    "EmbeddingDimensionConflict",
    "HashingEmbedder",
    "ImportanceScorer",
    "InvalidNote",
    "MemoryLibraryError",
    "ModelLoading",
    "MongoNotesStore",
    "NoteDeduplicator",
    "NoteNotFound",
    "NotesManager",
    "OpenAIEmbedder",
    "RestoreConflict",
    "ScoredNote",
    "SentenceTransformerEmbedder",
    "StoreError",
    "StoreUnavailable",
]
