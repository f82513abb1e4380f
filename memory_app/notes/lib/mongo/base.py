"""The plumbing every part of the notes store shares: the client and collection, change
notices for the vector index, pings and indexes. Error classification (outage or bug) is
the kernel's, shared with the facts store: ``qqweb.lib.mongo.guard``."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol

from pymongo import ASCENDING, DESCENDING, MongoClient
from pymongo.collection import Collection

from memory_app.notes.lib.constants import DEFAULT_COLLECTION, DEFAULT_DATABASE
from memory_app.notes.lib.mongo.layout_guard import LayoutGuardedCollection
from qqweb.lib.mongo.guard import guarded

# When qqweb inserted the note (an undo's exact reinsert keeps the old ``updated_at``):
# the incremental dedup scan compares it again (``note_ids_changed_since``).
WRITTEN_AT_FIELD = "qqweb_written_at"


class ChangeListener(Protocol):
    """Told about every note qqweb writes through the store (the vector index is one)."""

    def notes_changed(self, note_ids: Iterable[str]) -> None: ...


class MongoBase:
    def __init__(
        self,
        uri: str | None = None,
        database: str = DEFAULT_DATABASE,
        collection: str = DEFAULT_COLLECTION,
        *,
        client: MongoClient[dict[str, Any]] | None = None,
        timeout_ms: int = 5000,
    ) -> None:
        self._uri = uri or "mongodb://localhost:27017"
        self._database_name = database
        self._collection_name = collection
        self._client = client
        self._timeout_ms = timeout_ms
        self.vector_index: Any = None  # set by the caller, or built on first search

    # --- plumbing ------------------------------------------------------------------------

    @property
    def client(self) -> MongoClient[dict[str, Any]]:
        if self._client is None:
            self._client = MongoClient(
                self._uri, serverSelectionTimeoutMS=self._timeout_ms, tz_aware=False
            )
        return self._client

    @property
    def collection(self) -> Collection[dict[str, Any]]:
        """The raw collection. Only the store's own modules use it; tests that must plant
        exactly what the agent writes use it as the agent would. Its writes and index
        commands refuse a collection of the facts layout (``layout_guard.py``)."""
        return LayoutGuardedCollection(self.client[self._database_name], self._collection_name)

    @property
    def name(self) -> str:
        return self._collection_name

    @property
    def location(self) -> tuple[str, str]:
        return self._database_name, self._collection_name

    @contextmanager
    def _guard(self) -> Iterator[None]:
        """Driver errors leave the store classified (see :func:`classify`); while the
        server is known to be unreachable, fail at once (``outages.py``)."""
        with guarded(self.client):
            yield

    def _notify(self, note_ids: Iterable[str]) -> None:
        """Tell the vector index which notes this store just wrote, so a search right
        after sees them (whatever their ``updated_at``)."""
        listener: ChangeListener | None = self.vector_index
        if listener is not None:
            listener.notes_changed([str(i) for i in note_ids])

    def ping(self) -> float:
        """Round-trip time of a ``ping`` in milliseconds; raises StoreUnavailable."""
        started = time.perf_counter()
        with self._guard():
            self.client[self._database_name].command("ping")
        return (time.perf_counter() - started) * 1000

    def ensure_indexes(self, dashboard: bool = True) -> list[str]:
        """The agent's indexes (and, with ``dashboard``, the list's compound ones), created
        explicitly, never as a side effect of a read."""
        specs: list[tuple[list[tuple[str, int]], dict[str, Any]]] = [
            ([("note_id", ASCENDING)], {"unique": True}),
            ([("section", ASCENDING)], {}),
            ([("updated_at", DESCENDING)], {}),
            ([("importance", DESCENDING)], {}),
            ([("last_accessed", DESCENDING)], {}),
            ([("source.file_path", ASCENDING)], {"sparse": True}),
            ([("source.source_type", ASCENDING)], {"sparse": True}),
            ([("source.source_id", ASCENDING)], {"sparse": True}),
        ]
        if dashboard:
            # when qqweb inserted a note (only those it inserted have the field): the
            # incremental dedup scan's changed notes
            specs.append(([(WRITTEN_AT_FIELD, DESCENDING)], {"sparse": True}))
        if dashboard:
            # (sort field, note_id) pairs: the notes list's keyset pages use them, so a page
            # at any depth reads one index range. Ours, not the agent's: named qqweb_*.
            for field in (
                "importance",
                "created_at",
                "updated_at",
                "last_accessed",
                "access_count",
            ):
                specs.append(
                    (
                        [(field, DESCENDING), ("note_id", DESCENDING)],
                        {"name": f"qqweb_{field}_note_id"},
                    )
                )
        with self._guard():
            return [self.collection.create_index(keys, **opts) for keys, opts in specs]

    def count(self) -> int:
        """Total number of notes, from collection metadata (no scan)."""
        with self._guard():
            return int(self.collection.estimated_document_count())
