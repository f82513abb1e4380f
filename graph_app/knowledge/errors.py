"""Errors of the knowledge-graph library. Driver errors are classified once, here, and
re-raised by the store ``from e``:

- :class:`GraphUnavailable` (an outage: 503, retried by jobs) when Neo4j cannot be used
  right now and the same request may well succeed later;
- :class:`GraphStoreError` (a bug: 500, logged with its traceback, never retried) for
  anything else: a Cypher syntax or type error, a bad argument (a negative ``LIMIT``), a
  constraint violation, a query that outran its timeout, an error in our own code.

Which driver errors are outages, and why (:func:`classify_driver_error`):

- ``ServiceUnavailable`` (routing, read/write service unavailable, an incomplete commit)
  and ``SessionExpired``: no server could be reached or the connection went away;
- ``OSError``: a socket error below the driver;
- ``TransientError`` (and any error the driver itself calls retryable): the server says
  "not now" (database unavailable or starting, leader switch, deadlock, lock timeout).
  Debatable, since the request did reach a server; but the request is right, the server
  says retrying later may succeed, and the driver would retry it itself (our driver is
  built with ``max_transaction_retry_time=0`` so a page answers fast), so a 503 that jobs
  retry is the honest answer, not a 500 that hides a server in trouble as our bug;
- ``AuthError`` (wrong or expired credentials) and ``UnsupportedServerProduct``: the
  server at ``NEO4J_URI`` cannot be used with our settings. Not a bug in a query, and
  the dashboard must degrade (the graph banner with the reason) instead of failing every
  page that shows a graph count;
- the driver's "failed to obtain a connection from the pool" (a ``ClientError`` with no
  server code; its own TODO says it will become a ``DriverError`` in 6.0): every
  connection is busy waiting on the server.

The rest are refusals (:class:`GraphRefusal`): the request cannot be done as asked and
the caller can act on it (404, 409, 400).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from neo4j.exceptions import (
    AuthError,
    ClientError,
    Neo4jError,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
    UnsupportedServerProduct,
)

from qqweb.lib.errors import Conflict, InvalidInput, NotFound, QQError, Refused, Unavailable


class GraphError(QQError):
    """Base class of every error the graph library raises on purpose."""


class GraphUnavailable(GraphError, Unavailable):
    """Neo4j cannot be used right now (an outage): 503, retried by jobs."""

    def __init__(self, message: str) -> None:
        super().__init__("neo4j", message)

    def __reduce__(self) -> tuple[type, tuple[str]]:  # picklable for Celery results
        return type(self), (self.message,)


class GraphStoreError(GraphError):
    """A query failed for a reason that is not an outage: a bug (ours, or in the data we
    did not expect). 500, logged with its traceback (the driver's error is the cause),
    never retried. The instance's ``code`` is Neo4j's status code when the server gave
    one; the error body's code is the class's, ``internal``."""

    def __init__(self, message: str, code: str | None = None) -> None:
        what = code or message
        super().__init__(f"the knowledge graph store failed ({what}); the details are logged")
        self.store = "neo4j"
        self.message = message
        self.code = code  # type: ignore[assignment, misc]  # Neo4j's; the class's is the body's


class GraphRefusal(GraphError, Refused):
    """The request cannot be done as asked and the caller can act on it (not found,
    ambiguous, taken, changed since, invalid): a 4xx, never a bug, never retried."""


_POOL_TIMEOUT = "failed to obtain a connection from the pool"


def is_outage(error: BaseException) -> bool:
    """True when ``error`` (raised by the driver) means Neo4j cannot be used right now."""
    if isinstance(error, ServiceUnavailable | SessionExpired | OSError | TransientError):
        return True
    if isinstance(error, AuthError | UnsupportedServerProduct):
        return True
    if isinstance(error, Neo4jError) and error.is_retryable():
        return True
    return (
        isinstance(error, ClientError)
        and error.code is None
        and str(error).startswith(_POOL_TIMEOUT)
    )


def classify_driver_error(error: Exception) -> GraphUnavailable | GraphStoreError:
    """The one classification of what comes out of the driver (see the module doc)."""
    message = str(error) or type(error).__name__
    if is_outage(error):
        return GraphUnavailable(message)
    return GraphStoreError(message, getattr(error, "code", None) or type(error).__name__)


@contextmanager
def driver_errors_classified() -> Iterator[None]:
    """Around every use of the driver: our own errors pass through, anything else that
    comes out (the driver's errors, and a bug in a transaction function) is classified
    by :func:`classify_driver_error` and raised ``from`` the original."""
    try:
        yield
    except GraphError:
        raise
    except Exception as e:
        raise classify_driver_error(e) from e


class InvalidIdentifier(GraphRefusal, InvalidInput):
    """A label or relationship type that may not be put into a Cypher query (400)."""

    def __init__(self, field: str, value: str) -> None:
        QQError.__init__(
            self,
            f"{field} {value!r} is not allowed: use letters, digits and '_' "
            "(starting with a letter), at most 64 characters",
        )
        self.field = field
        self.value = value
        self.message = str(self)


class EntityNotFound(GraphRefusal, NotFound):
    def __init__(self, label: str, name: str) -> None:
        super().__init__(f"there is no {label} named {name!r}")
        self.label = label
        self.name = name

    def details(self) -> dict[str, object]:
        return {"label": self.label, "name": self.name}


class AmbiguousEntity(GraphRefusal, Conflict):
    """More than one node answers to a lookup that should name one entity (409)."""

    code = "ambiguous"

    def __init__(self, name: str, labels: list[str]) -> None:
        super().__init__(
            f"{name!r} is ambiguous: it names {len(labels)} entities "
            f"({', '.join(sorted(labels))}); say which label you mean"
        )
        self.name = name
        self.labels = sorted(labels)

    def details(self) -> dict[str, object]:
        return {"name": self.name, "labels": self.labels}


class NameTaken(GraphRefusal, Conflict):
    code = "name_taken"

    def __init__(self, label: str, name: str) -> None:
        super().__init__(f"there is already a {label} named {name!r}; merge the two instead")
        self.label = label
        self.name = name

    def details(self) -> dict[str, object]:
        return {"field": "new_name", "label": self.label}


class EntityChanged(GraphRefusal, Conflict):
    """A write was prepared from a state the graph no longer has (the agent wrote since)."""

    code = "stale"

    def __init__(self, what: str) -> None:
        super().__init__(
            f"{what} changed in the graph after it was read (the agent, or another "
            "curator, wrote since); reload it and try again"
        )
        self.what = what


class InvalidGraphValue(GraphRefusal, InvalidInput):
    """A value for a curation action that the graph cannot take, naming the field (400)."""


class RelationshipNotFound(GraphRefusal, NotFound):
    def __init__(self, description: str) -> None:
        super().__init__(f"there is no relationship {description}")
        self.description = description
