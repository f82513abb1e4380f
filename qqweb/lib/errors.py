"""The one error base. Every error qqweb raises on purpose is a :class:`QQError` whose
class says how a front door answers it: ``status`` (the HTTP status) and ``code`` (the
``error.code`` of the JSON body), as class attributes; :meth:`QQError.client_message` is
what the body's ``message`` says (the error's text) and :meth:`QQError.details` the other
keys of the body (``field``, ``note_id`` ...). The API maps every one of them with one handler
(``qqweb.api.register_exception_handlers``), the pages with one middleware
(``qqweb.middleware.QQErrorMiddleware``).

The generic kinds below are what a domain error inherits from (``NoteNotFound`` is a
:class:`NotFound`, ``StaleWrite`` a :class:`Conflict`, ``StoreUnavailable`` an
:class:`Unavailable`); a caller that only cares whether a request was refused catches
:class:`Refused`.

Framework-free: this module imports nothing from Django, ninja or any app, so the
libraries (``memory_app.notes.lib``, ``memory_app.facts.lib``, ``graph_app.knowledge``) may
build their errors on it.
"""

from __future__ import annotations

from typing import ClassVar


class QQError(Exception):
    """Base of every error qqweb raises on purpose. Without a more precise kind it is a bug
    (500, logged with its traceback)."""

    status: ClassVar[int] = 500
    code: ClassVar[str] = "internal"

    def client_message(self) -> str:
        """The body's ``message``: the error's text unless a subclass says otherwise."""
        return str(self)

    def details(self) -> dict[str, object]:
        """The body's other keys, naming what the error is about."""
        return {}


class Refused(QQError):
    """The request cannot be done as asked and the caller can act on it (a 4xx): never a
    bug, never retried."""

    status = 400
    code = "refused"


class InvalidInput(Refused):
    """A value the caller sent does not fit (400), naming the field. Subclasses for a
    value that is well-formed but cannot be used here say 422."""

    status = 400
    code = "invalid"

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message  # without the field's name, which the body says apart

    def client_message(self) -> str:
        return self.message

    def details(self) -> dict[str, object]:
        return {"field": self.field}


class NotFound(Refused):
    """What the request names does not exist (404)."""

    status = 404
    code = "not_found"


class Conflict(Refused):
    """The request contradicts the current state (409): changed since it was read, taken
    already, asks to be confirmed."""

    status = 409
    code = "conflict"


class Busy(Conflict):
    """Something else holds what the request needs right now (a job of the same kind
    running, its lock): 409, try again once it is done."""

    code = "busy"


class Forbidden(Refused):
    """The person asking may not do this (403)."""

    status = 403
    code = "forbidden"


class Unavailable(QQError):
    """A store or service cannot answer now (503): the same request may well succeed
    later, and jobs retry it. ``store`` names it; ``retry_after`` (seconds), when known,
    is sent as ``Retry-After``."""

    status = 503
    code = "store_unavailable"
    retry_after: int | None = None

    def __init__(self, store: str, message: str) -> None:
        super().__init__(f"{store} is unavailable: {message}")
        self.store = store
        self.message = message  # the reason alone

    def details(self) -> dict[str, object]:
        return {"store": self.store}


# --- the stores' errors, shared by every library ----------------------------------------


class StoreUnavailable(Unavailable):
    """A store (MongoDB, the memory directory, the embedding service, Neo4j) did not answer
    (503): the kind every store's outage is."""

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


class StoreError(QQError):
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


class DimensionMismatch(Refused):
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
