"""The memory library: framework-free (no Django), laid out like the agent's ``qq.memory``.

Django-side code composes it in ``memory_app.stores`` (wiring from settings),
``memory_app.selectors`` (reads) and ``memory_app.services`` (audited writes).
"""

from .archive import ArchivedNote, ArchiveManager, RestoreConflict
from .deduplication import ConsolidationReport, DuplicatePair, NoteDeduplicator
from .embeddings import Embedder, HashingEmbedder, OpenAIEmbedder, SentenceTransformerEmbedder
from .errors import (
    DimensionMismatch,
    EmbeddingDimensionConflict,
    InvalidNote,
    MemoryLibraryError,
    ModelLoading,
    NoteNotFound,
    StoreError,
    StoreUnavailable,
)
from .importance import ImportanceScorer, ScoredNote
from .markdown_notes import CoreNotesManager, NotesManager
from .mongo_store import MongoNotesStore

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
