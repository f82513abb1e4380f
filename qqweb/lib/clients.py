"""Process-wide clients, created lazily on first use and once per process.

A Celery prefork worker forks after import; keying the cache on the pid means a child
never reuses a socket its parent opened. Stores receive these clients; nothing else
builds a ``MongoClient`` or a Neo4j driver.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from django.conf import settings
from neo4j import Driver, GraphDatabase
from pymongo import MongoClient

from qqweb.lib.embeddings import Embedder, build_embedder

_lock = threading.Lock()
_cache: dict[tuple[Any, ...], Any] = {}


def _cached(key: tuple[Any, ...], factory: Any) -> Any:
    full_key = (os.getpid(), *key)
    with _lock:
        if full_key not in _cache:
            _cache[full_key] = factory()
        return _cache[full_key]


def embedder_inherit(parent_pid: int) -> None:
    """In a process just forked from ``parent_pid``: use the embedder the parent loaded
    (a preloading gunicorn master, ``qqweb/warm_up.py``) instead of loading another. Only
    the embedder: clients hold sockets, which a child never reuses."""
    with _lock:
        for key, value in list(_cache.items()):
            if key[0] == parent_pid and key[1] == "embedder":
                _cache.setdefault((os.getpid(), *key[1:]), value)


def mongo_client() -> MongoClient[dict[str, Any]]:
    uri = settings.MONGODB_URI
    timeout = settings.QQ_STORE_TIMEOUT_MS
    return _cached(
        ("mongo", uri, timeout),
        lambda: MongoClient(
            uri,
            serverSelectionTimeoutMS=timeout,
            connectTimeoutMS=timeout,
            tz_aware=False,
            appname="qqweb",
        ),
    )


def facts_mongo_client() -> MongoClient[dict[str, Any]]:
    """The client of the facts agent's MongoDB (``QQ_FACTS_MONGO_URI``), with the agent's
    own ``tz_aware=False``."""
    uri = settings.QQ_FACTS_MONGO_URI
    timeout = settings.QQ_STORE_TIMEOUT_MS
    return _cached(
        ("facts-mongo", uri, timeout),
        lambda: MongoClient(
            uri,
            serverSelectionTimeoutMS=timeout,
            connectTimeoutMS=timeout,
            tz_aware=False,
            appname="qqweb-facts",
        ),
    )


def neo4j_driver() -> Driver:
    uri, user, password = settings.NEO4J_URI, settings.NEO4J_USER, settings.NEO4J_PASSWORD
    timeout = settings.QQ_STORE_TIMEOUT_MS / 1000
    return _cached(
        ("neo4j", uri, user, password, timeout),
        lambda: GraphDatabase.driver(
            uri,
            auth=(user, password),
            connection_timeout=timeout,
            connection_acquisition_timeout=max(timeout, 5.0),
            max_transaction_retry_time=0,
            notifications_min_severity="OFF",
        ),
    )


def embedder() -> Embedder:
    key = (
        "embedder",
        settings.QQ_EMBEDDING_BACKEND,
        settings.QQ_EMBEDDING_MODEL,
        settings.TEI_URL,
        settings.QQ_EMBEDDING_DIMENSION,
        settings.QQ_EMBEDDING_ENGINE,
    )
    return _cached(
        key,
        lambda: build_embedder(
            settings.QQ_EMBEDDING_BACKEND,
            model=settings.QQ_EMBEDDING_MODEL,
            url=settings.TEI_URL,
            api_key=settings.QQ_EMBEDDING_API_KEY,
            dimension=settings.QQ_EMBEDDING_DIMENSION,
            timeout=settings.QQ_EMBEDDING_TIMEOUT_S,
            engine=settings.QQ_EMBEDDING_ENGINE,
        ),
    )


def embedder_warm_up(*, wait_while_loading: bool) -> None:
    """Start loading the embedding model in the background (QQ_EMBEDDER_WARM_UP), so the
    first search or save does not pay for it; start-up is not slower. A web process passes
    ``wait_while_loading=False``: a request that needs the model before it is ready gets a
    503 with Retry-After instead of hanging. Backends with nothing to load do nothing."""
    if not settings.QQ_EMBEDDER_WARM_UP:
        return
    model = embedder()
    start = getattr(model, "start_loading", None)
    if start is None:
        return
    model.wait_while_loading = wait_while_loading  # type: ignore[attr-defined]
    start()
