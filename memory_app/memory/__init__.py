"""The memory library: framework-free (no Django), laid out like the agent's ``qq.memory``.

Django-side code composes it in ``memory_app.stores`` (wiring from settings),
``memory_app.selectors`` (reads) and ``memory_app.services`` (audited writes).
"""

from .archive import ArchiveManager
from .embeddings import Embedder, HashingEmbedder, OpenAIEmbedder, SentenceTransformerEmbedder
from .errors import (
    DimensionMismatch,
    InvalidNote,
    MemoryLibraryError,
    NoteNotFound,
    StoreUnavailable,
)
from .markdown_notes import CoreNotesManager, NotesManager
from .mongo_store import MongoNotesStore

__all__ = [
    "ArchiveManager",
    "CoreNotesManager",
    "DimensionMismatch",
    "Embedder",
    "HashingEmbedder",
    "InvalidNote",
    "MemoryLibraryError",
    "MongoNotesStore",
    "NoteNotFound",
    "NotesManager",
    "OpenAIEmbedder",
    "SentenceTransformerEmbedder",
    "StoreUnavailable",
]
