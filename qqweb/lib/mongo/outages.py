"""Fail fast while a MongoDB server is known to be unreachable.

A page may read a store several times; with the server down, each read would wait the
whole server selection timeout (``QQ_STORE_TIMEOUT_MS``), so a page would take several
times that. Once a read found the server unreachable, every read through the same client
fails at once with the same :class:`StoreUnavailable` for twice the client's server
selection timeout (at least ``MIN_RETRY_AFTER_S``); the first read after that tries the
server again, so the dashboard comes back by itself with the store, at most that much
later. Only unreachability counts (a connection or
server selection failure), never a slow or refused query.

A failure is remembered only when no use of the client succeeded after the failed one
began: a read that started while the server was down and gave up a second later, after
the server came back and another read got through (a follower thread's, say), would
otherwise mark a store that answers as down for the next seconds."""

from __future__ import annotations

import threading
import time

from qqweb.lib.errors import StoreUnavailable

MIN_RETRY_AFTER_S = 1.0

_lock = threading.Lock()
_down_until: dict[int, tuple[float, str]] = {}
_last_success: dict[int, float] = {}


def check_reachable(client_key: int, store: str) -> None:
    """Raise at once while the client's server was found unreachable recently."""
    with _lock:
        until, reason = _down_until.get(client_key, (0.0, ""))
    left = until - time.monotonic()
    if left > 0:
        raise StoreUnavailable(store, f"{reason} (tried again in {left:.1f} s)")


def record_reachable(client_key: int) -> None:
    """A use of the client got through: an earlier-begun use that fails now says nothing
    about the server."""
    with _lock:
        _last_success[client_key] = time.monotonic()


def record_unreachable(
    client_key: int, reason: str, timeout_s: float, *, started: float | None = None
) -> None:
    """Remember that the server was unreachable for a use begun at ``started``
    (``time.monotonic()``), unless another use succeeded since it began."""
    retry_after = max(MIN_RETRY_AFTER_S, 2 * timeout_s)
    with _lock:
        if started is not None and _last_success.get(client_key, -1.0) > started:
            return
        _down_until[client_key] = (time.monotonic() + retry_after, reason)


def forget_outages() -> None:
    """Forget every recorded outage (tests that restart a server)."""
    with _lock:
        _down_until.clear()
        _last_success.clear()
