"""Fail fast while a MongoDB server is known to be unreachable.

A page may read a store several times; with the server down, each read would wait the
whole server selection timeout (``QQ_STORE_TIMEOUT_MS``), so a page would take several
times that. Once a read found the server unreachable, every read through the same client
fails at once with the same :class:`StoreUnavailable` for twice the client's server
selection timeout (at least ``MIN_RETRY_AFTER_S``); the first read after that tries the
server again, so the dashboard comes back by itself with the store, at most that much
later. Only unreachability counts (a connection or
server selection failure), never a slow or refused query."""

from __future__ import annotations

import threading
import time

from ..errors import StoreUnavailable

MIN_RETRY_AFTER_S = 1.0

_lock = threading.Lock()
_down_until: dict[int, tuple[float, str]] = {}


def check_reachable(client_key: int, store: str) -> None:
    """Raise at once while the client's server was found unreachable recently."""
    with _lock:
        until, reason = _down_until.get(client_key, (0.0, ""))
    left = until - time.monotonic()
    if left > 0:
        raise StoreUnavailable(store, f"{reason} (tried again in {left:.1f} s)")


def record_unreachable(client_key: int, reason: str, timeout_s: float) -> None:
    retry_after = max(MIN_RETRY_AFTER_S, 2 * timeout_s)
    with _lock:
        _down_until[client_key] = (time.monotonic() + retry_after, reason)


def forget_outages() -> None:
    """Forget every recorded outage (tests that restart a server)."""
    with _lock:
        _down_until.clear()
