"""Errors raised by the memory library. Driver errors are re-raised as these, ``from`` the
original, so callers never need to know pymongo's exception tree. Each is a kind of
``qqweb.lib.errors.QQError`` (its ``status`` and ``code`` say how a front door answers it)."""

from __future__ import annotations

from qqweb.lib.errors import Conflict, InvalidInput, NotFound, QQError, Refused, Unavailable


class MemoryLibraryError(QQError):
    """Base class of every error the memory library raises on purpose."""


class StoreUnavailable(MemoryLibraryError, Unavailable):
    """A store (MongoDB, the memory directory, the embedding service) did not answer (503)."""

    def __reduce__(self) -> tuple[type, tuple[str, str]]:  # picklable for Celery results
        return type(self), (self.store, self.message)


class ModelLoading(StoreUnavailable):
    """The embedding model is still loading in the background (a process loads it when it
    starts): the request that needs it is answered at once (503 with ``Retry-After``),
    asking to try again."""

    code = "model_loading"

    def __init__(self, model: str, seconds: float, retry_after: int = 5) -> None:
        QQError.__init__(
            self,
            f"the embedding model {model} is still loading (for {seconds:.0f} s so far, "
            f"since this process started); try again in {retry_after} s",
        )
        self.store, self.model, self.seconds, self.retry_after = (
            "embedder",
            model,
            seconds,
            retry_after,
        )
        self.message = str(self)

    def __reduce__(self) -> tuple[type, tuple[str, float, int | None]]:  # type: ignore[override]
        return type(self), (self.model, self.seconds, self.retry_after)


class StoreError(MemoryLibraryError):
    """A store answered, but refused what we asked (a duplicate key, a bad query, a server
    error): a bug, not an outage. Shown as a 500 and logged with its traceback; a job that
    meets one fails at once instead of being retried."""

    code = "store_error"

    def __init__(self, store: str, message: str) -> None:
        super().__init__(f"{store} refused the operation: {message}")
        self.store = store
        self.message = message

    def __reduce__(self) -> tuple[type, tuple[str, str]]:  # picklable for Celery results
        return type(self), (self.store, self.message)

    def details(self) -> dict[str, object]:
        return {"store": self.store}


class NoteNotFound(MemoryLibraryError, NotFound):
    def __init__(self, note_id: str) -> None:
        super().__init__(f"note {note_id!r} does not exist")
        self.note_id = note_id

    def details(self) -> dict[str, object]:
        return {"note_id": self.note_id}


class InvalidNote(MemoryLibraryError, InvalidInput):
    """A note or a field of one (an archive line, a core.md item) does not fit the agent's
    data contract (400). A list filter, sort or cursor is an :class:`InvalidQuery`, a
    backup file name an :class:`InvalidBackupFile`, anything else the caller sent a plain
    ``qqweb.lib.errors.InvalidInput`` or an app's own kind of it."""


class InvalidQuery(MemoryLibraryError, InvalidInput):
    """A list filter, sort, cursor, search text or count of days the store cannot take
    (400), naming it."""


class InvalidBackupFile(MemoryLibraryError, InvalidInput):
    """A name that is not a file of the memory directory or of the backup directory (400)."""


class DimensionMismatch(MemoryLibraryError, Refused):
    """Vectors of different dimensions were about to be compared (422 for a query)."""

    status = 422
    code = "dimension_mismatch"

    def __init__(self, expected: int, actual: int, what: str = "vector") -> None:
        super().__init__(
            f"{what} has {actual} dimensions but the stored vectors have {expected}; "
            "configure the embedding model the agent used, or re-embed the notes"
        )
        self.expected = expected
        self.actual = actual

    def details(self) -> dict[str, object]:
        return {"expected": self.expected, "actual": self.actual}


class EmbeddingDimensionConflict(DimensionMismatch, Conflict):
    """Re-embedding would replace a stored vector with one of another dimension. The agent
    compares vectors by truncating them to the shorter one (``zip``), so such a note would
    silently drop out of its search. Refused (a 409); a query of the wrong dimension stays
    a plain :class:`DimensionMismatch` (422)."""

    status = 409
    code = "embedding_dimension_conflict"

    def __init__(self, stored: int, produced: int, *, what: str, model: str = "") -> None:
        model_text = f"the configured model {model!r}" if model else "the configured model"
        QQError.__init__(
            self,
            f"{what} has {stored}-dimensional embeddings but {model_text} makes "
            f"{produced}-dimensional vectors: a vector of another dimension drops out of the "
            "agent's search (it truncates vectors to compare them), so nothing was changed. "
            "Configure the agent's own model: QQ_EMBEDDING_BACKEND=openai with TEI_URL "
            "pointing at the agent's embedding service (its /v1 endpoint) and "
            "QQ_EMBEDDING_MODEL set to the model it serves",
        )
        self.expected = stored
        self.actual = produced
        self.what = what

    def details(self) -> dict[str, object]:
        return {"stored_dimension": self.expected, "model_dimension": self.actual}


class StaleWrite(MemoryLibraryError, Conflict):
    """An edit was made on a copy older than the note in the store (409)."""

    code = "stale"

    def __init__(self, note_id: str, current: dict[str, object] | None = None) -> None:
        super().__init__(
            f"note {note_id!r} was changed by someone else (the agent, or another curator) "
            "after you loaded it; reload it and make your change again"
        )
        self.note_id = note_id
        self.current = current

    def details(self) -> dict[str, object]:
        return {"note_id": self.note_id}
