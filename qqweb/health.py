"""Store health: is each store up, how fast does it answer, and what to do when it is not.

Checks run concurrently, so a store that is down costs one timeout, not one per store.
``cached_stores_health`` keeps the answer for a few seconds and checks in the background:
the layout shows it on every page and must not wait on a slow or dead server.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any

from django.conf import settings
from kombu import Connection

from graph_app.stores import graph_store
from memory_app.facts.stores import facts_enabled, facts_store
from memory_app.notes.stores import notes_store
from qqweb.dev_startup import graph_starting
from qqweb.lib.words import store_label

HINTS = {
    "mongodb": "Check MONGODB_URI; `make dev` starts SecantusDB on localhost:27017.",
    "neo4j": "Check NEO4J_URI; `make dev` starts Neo4j when a JDK 17+ and Maven are "
    "installed (or run `scripts/neo4j.sh start`).",
    "memory_dir": "Set MEMORY_DIR to the agent's memory directory.",
    "broker": "Check CELERY_BROKER_URL; jobs cannot run until it answers.",
    "facts": "Check QQ_FACTS_MONGO_URI (the facts agent's MONGO_URI, with its database).",
}
STARTING_HINT = "`make dev` is starting it; the graph pages work once it answers."


@dataclass(frozen=True)
class StoreStatus:
    name: str
    up: bool
    latency_ms: float | None
    detail: str
    hint: str
    starting: bool = False  # down because `make dev` is still starting it (detail: what)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)  # the API's (and /healthz's) keys: ``name``, never the label

    @property
    def label(self) -> str:
        """The store in words on the pages ("Memory folder", "Broker (Redis)")."""
        return store_label(self.name, settings.CELERY_BROKER_URL)

    @property
    def shown_detail(self) -> str:
        """The page's detail: a broker that answers is the transport's short name
        ("sqla"), which its label already says in words."""
        return "answers: jobs can be queued" if self.name == "broker" and self.up else self.detail


def _check_mongodb() -> str:
    notes_store().ping()
    return settings.QQ_MONGO_DB + "." + settings.QQ_MONGO_COLLECTION


def _check_neo4j() -> str:
    graph_store().ping()
    return settings.NEO4J_URI


def _check_memory_dir() -> str:
    path = settings.MEMORY_DIR
    if not path.is_dir():
        raise OSError(f"{path} does not exist")
    if not os.access(path, os.W_OK):
        raise OSError(f"{path} is not writable")
    return str(path)


def _check_broker() -> str:
    with Connection(settings.CELERY_BROKER_URL, connect_timeout=2) as connection:
        # One attempt: a refused connection is an answer (kombu would sleep 2 s and retry).
        connection.ensure_connection(max_retries=0, timeout=2)
        return connection.transport_cls if isinstance(connection.transport_cls, str) else "ok"


def _check_facts() -> str:
    store = facts_store()
    store.ping()
    return ".".join(store.location)


CHECKS: dict[str, Callable[[], str]] = {
    "mongodb": _check_mongodb,
    "neo4j": _check_neo4j,
    "memory_dir": _check_memory_dir,
    "broker": _check_broker,
}
OPTIONAL_CHECKS: dict[str, tuple[Callable[[], bool], Callable[[], str]]] = {
    # the second agent's facts store: checked only while it is configured
    "facts": (facts_enabled, _check_facts),
}


def _checks() -> dict[str, Callable[[], str]]:
    return {**CHECKS, **{k: check for k, (on, check) in OPTIONAL_CHECKS.items() if on()}}


def _run_check(name: str) -> StoreStatus:
    started = time.perf_counter()
    try:
        detail = _checks()[name]()
    except Exception as e:
        # A health check reports every failure as "down"; it never raises.
        message = getattr(e, "message", None) or str(e) or type(e).__name__
        starting = graph_starting() if name == "neo4j" else None
        if starting is not None:
            return StoreStatus(name, False, None, f"{starting}.", STARTING_HINT, starting=True)
        return StoreStatus(name, False, None, message[:300], HINTS[name])
    latency = round((time.perf_counter() - started) * 1000, 2)
    return StoreStatus(name, True, latency, detail, "")


def stores_health() -> list[StoreStatus]:
    checks = _checks()
    with ThreadPoolExecutor(max_workers=len(checks)) as pool:
        return list(pool.map(_run_check, checks))


_cache_lock = threading.Lock()
_cached: tuple[float, tuple[Any, ...], list[StoreStatus]] | None = None
_generation = 0  # bumped by forget_cached_health: a check begun before it is not kept


def _settings_key() -> tuple[Any, ...]:
    return (
        settings.MONGODB_URI,
        settings.QQ_MONGO_DB,
        settings.NEO4J_URI,
        str(settings.MEMORY_DIR),
        settings.CELERY_BROKER_URL,
        settings.QQ_FACTS_MONGO_URI,
    )


_refreshing: set[tuple[Any, ...]] = set()  # settings keys being checked in the background


def _refresh(key: tuple[Any, ...], generation: int) -> list[StoreStatus]:
    """Check now and keep the answer, timed from when the check began: a check that began
    earlier but ended later (a slow store's timeout) never replaces a newer answer."""
    global _cached
    began = time.monotonic()
    try:
        result = stores_health()
        with _cache_lock:
            newer = _cached is not None and _cached[1] == key and _cached[0] > began
            if generation == _generation and not newer:
                _cached = (began, key, result)
        return result
    finally:
        with _cache_lock:
            _refreshing.discard(key)


def cached_stores_health(
    max_age_s: float = 15.0, *, wait: bool = False
) -> list[StoreStatus] | None:
    """The stores' health for the layout's dots and banner. A page never waits for the
    checks: it gets the last answer at once (``None`` while the process has none yet) and,
    when that answer is missing or older than ``max_age_s``, one background thread checks
    again; a store that is slow or down never makes a page wait for its timeout. The
    layout shows "checking" for ``None`` and asks the dots' partial, which passes
    ``wait=True``: it checks now when there is no answer yet (at most one timeout, off the
    page's own request)."""
    key = _settings_key()
    with _cache_lock:
        cached = _cached if _cached and _cached[1] == key else None
        fresh = cached is not None and time.monotonic() - cached[0] < max_age_s
        if fresh or (key in _refreshing and (cached is not None or not wait)):
            return cached[2] if cached else None
        _refreshing.add(key)
        generation = _generation
    if cached is None and wait:
        return _refresh(key, generation)
    threading.Thread(
        target=_refresh, args=(key, generation), name="qqweb-health", daemon=True
    ).start()
    return cached[2] if cached else None


def checked_stores_health() -> list[StoreStatus]:
    """Check every store now (the Health page) and keep the answer for the layout."""
    forget_cached_health()
    with _cache_lock:
        generation = _generation
    return _refresh(_settings_key(), generation)


def forget_cached_health() -> None:
    global _cached, _generation
    with _cache_lock:
        _cached = None
        _generation += 1
