"""A MongoDB driver error as ours, decided once for every store: an outage
(:class:`StoreUnavailable`: 503, jobs retry) or a bug (:class:`StoreError`: 500, never
retried); the guard around a use of a client that also remembers an unreachable server;
and whether a refused unordered bulk insert hit only keys already taken."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from pymongo import MongoClient
from pymongo.errors import (
    ConnectionFailure,
    ExecutionTimeout,
    OperationFailure,
    PyMongoError,
    WTimeoutError,
)

from qqweb.lib.errors import StoreError, StoreUnavailable
from qqweb.lib.mongo.outages import check_reachable, record_reachable, record_unreachable

# Server error codes that mean "not reachable now, try again later" rather than "this
# request is wrong": shutdown, step-down, network, time limits.
OUTAGE_CODES = frozenset({6, 7, 50, 89, 91, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436})
DUPLICATE_KEY = 11000


def classify(error: PyMongoError) -> StoreUnavailable | StoreError:
    """A driver error as ours: :class:`StoreUnavailable` when the server cannot be
    reached or is shutting down (503; jobs retry), :class:`StoreError` otherwise (a bug:
    a duplicate key, a refused query; 500, never retried)."""
    if isinstance(error, ConnectionFailure | ExecutionTimeout | WTimeoutError):
        return StoreUnavailable("mongodb", str(error).split(", Timeout")[0])
    if isinstance(error, OperationFailure) and error.code in OUTAGE_CODES:
        return StoreUnavailable("mongodb", str(error))
    return StoreError("mongodb", str(error))


@contextmanager
def guarded(client: MongoClient[dict[str, Any]]) -> Iterator[None]:
    """Around a use of ``client``: fail at once while its server is known to be down,
    classify driver errors, and remember an unreachable server."""
    check_reachable(id(client), "mongodb")
    started = time.monotonic()
    try:
        yield
    except ConnectionFailure as e:
        error = classify(e)
        reason = error.message if isinstance(error, StoreUnavailable) else str(e)
        record_unreachable(
            id(client), reason, client.options.server_selection_timeout, started=started
        )
        raise error from e
    except PyMongoError as e:
        raise classify(e) from e
    record_reachable(id(client))


def only_duplicates(details: Mapping[str, Any]) -> bool:
    """Whether an unordered bulk insert was refused only for keys already taken."""
    errors = details.get("writeErrors", [])
    return (
        bool(errors)
        and all(e.get("code") == DUPLICATE_KEY for e in errors)
        and not details.get("writeConcernErrors")
    )
