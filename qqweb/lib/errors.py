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
