"""The memory library: framework-free (no Django), laid out like the agent's ``qq.memory``.

Django-side code composes it in ``memory_app.notes.stores`` (wiring from settings),
``memory_app.notes.selectors`` (reads) and ``memory_app.notes.services`` (audited writes).
"""

from memory_app.notes.lib.archive import ArchivedNote, ArchiveManager, RestoreConflict
from memory_app.notes.lib.dedup.deduplicator import (
    ConsolidationReport,
    DuplicatePair,
    NoteDeduplicator,
)
from memory_app.notes.lib.errors import (
    InvalidBackupFile,
    InvalidNote,
    InvalidQuery,
    MemoryLibraryError,
    NoteNotFound,
)
from memory_app.notes.lib.importance import ImportanceScorer, ScoredNote
from memory_app.notes.lib.markdown_notes import CoreNotesManager, NotesManager
from memory_app.notes.lib.mongo_store import MongoNotesStore
from qqweb.lib.embeddings import (
    Embedder,
    HashingEmbedder,
    OpenAIEmbedder,
    SentenceTransformerEmbedder,
)
from qqweb.lib.errors import (
    DimensionMismatch,
    EmbeddingDimensionConflict,
    ModelLoading,
    StoreError,
    StoreUnavailable,
)

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
    "InvalidBackupFile",
    "InvalidNote",
    "InvalidQuery",
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
