"""Real services, started only for the tests that ask for them.

Each store has its own fixture; a test (or a module, with ``pytestmark``) requests the
ones it touches:

- ``mongo``: SecantusDB (MongoDB protocol, in-process, started once per session) and a
  fresh database for this test, with the agent's indexes.
- ``memory_dir``: an empty memory directory (core.md, notes.md, archive.jsonl) in tmp.
- ``neo4j``: Neo4j (started once per session by the launcher in scripts/) with an empty
  graph for this test.
- ``broker``: Redis (started once per session) as the Celery broker and result backend.
- ``stores``: all four, for tests that use everything (pages, whose layout checks every
  store, and the API).
- ``celery_worker``: a real worker process on the same services, started once per session.
- ``dev_broker_worker``: a real worker on the broker ``make dev`` runs (kombu's SQLAlchemy
  transport on SQLite, thread pool), started once per session.
- ``own_dev_broker``: every store, and a ``make dev`` broker of the test's own that no
  worker consumes (a test starts its own worker or beat there, or none).

A test that requests nothing starts nothing: every store setting then points where no
store can answer (a closed port on loopback, a path under /dev/null), so a test that
touches a store it did not request fails, and never reaches a developer's real database.
Nothing is mocked and nothing skips: a service that cannot start fails the run with the
reason (tests/services.py)."""

from __future__ import annotations

import importlib.util
import itertools
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.core.cache import cache
from neo4j import GraphDatabase
from pymongo import MongoClient

from graph_app.knowledge.store import GraphStore
from graph_app.stores import graph_store
from memory_app.notes import stores as memory_stores
from memory_app.notes.selectors import overview as overview_selectors
from memory_app.notes.stores import notes_store, vector_indexes_close
from qqweb.health import forget_cached_health
from qqweb.lib.mongo.outages import forget_outages
from tests.secantus_service import SecantusService
from tests.services import (
    CLOSED,
    Neo4jService,
    celery_uses,
    start_redis,
    stop,
)

ROOT = Path(__file__).resolve().parent.parent

# The Celery workers, the personas and the MongoDB command recorder are fixtures of their
# own modules; the heap plugin keeps the garbage collector's pauses short.
pytest_plugins = [
    "tests.plugins.heap",
    "tests.plugins.database",
    "tests.plugins.workers",
    "tests.plugins.personas",
    "tests.plugins.mongo_commands",
]

_db_numbers = itertools.count(1)


def pytest_configure(config: pytest.Config) -> None:
    """Django's test database on SQLite lives in ``var/`` (settings: QQ_TEST_DATABASE_PATH),
    which a fresh clone does not have yet."""
    if django_settings.DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
        test_db = django_settings.DATABASES["default"]["TEST"]["NAME"]
        Path(test_db).parent.mkdir(parents=True, exist_ok=True)


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A test marked ``torch`` run where the torch extra is not installed (``-m torch`` in
    the default environment) fails with what to run, instead of an ImportError in its
    fixtures; it never skips (``make test-torch`` installs the extra)."""
    if (
        item.get_closest_marker("torch")
        and importlib.util.find_spec("sentence_transformers") is None
    ):
        pytest.fail(
            "this test needs the torch extra (sentence-transformers, torch), which this "
            "environment does not have: run `make test-torch`",
            pytrace=False,
        )


# Where a store's settings point while its fixture is not requested: nothing listens on
# port 9 (discard) of the loopback, and nothing can be created under /dev/null. A query or
# a publish is refused (MongoDB after its 2 s server selection), a write to the memory
# directory raises NotADirectoryError, and a read there finds nothing; each error names
# the address, and the report then names the fixtures the test did not request.
NOT_REQUESTED = {
    "MONGODB_URI": f"mongodb://{CLOSED}/",
    "NEO4J_URI": f"bolt://{CLOSED}",
    "MEMORY_DIR": Path("/dev/null/memory_dir-not-requested"),
    "CELERY_BROKER_URL": f"redis://{CLOSED}/0",
}
STORE_FIXTURES = ("mongo", "memory_dir", "neo4j", "broker")
_NOT_REQUESTED_TRACE = re.compile(r"127\.0\.0\.1:9\b|/dev/null/memory_dir-not-requested")


@pytest.fixture(autouse=True)
def unrequested_stores_are_unreachable(settings: Any) -> Iterator[None]:
    """Every test starts with settings that reach no store (see ``NOT_REQUESTED``) and the
    deterministic hashing embedder; the store fixtures below point the settings at the
    test services. Starts nothing."""
    for name, value in NOT_REQUESTED.items():
        setattr(settings, name, value)
    settings.QQ_MONGO_DB = "qqtest_not_requested"
    settings.QQ_EMBEDDING_BACKEND = "hashing"
    settings.QQ_EMBEDDING_DIMENSION = 384
    celery_uses(NOT_REQUESTED["CELERY_BROKER_URL"])
    forget_cached_health()
    forget_outages()
    yield
    forget_cached_health()


@pytest.fixture(autouse=True)
def backup_dir(settings: Any, tmp_path: Path) -> Path:
    """Exports and uploads of each test in its own directory, never the dashboard's
    ``var/backups`` (the worker's tests give the worker theirs)."""
    settings.QQ_BACKUP_DIR = tmp_path / "backups"
    return settings.QQ_BACKUP_DIR


@pytest.fixture(autouse=True)
def fresh_rate_limits() -> Iterator[None]:
    """API token rate limits count in the cache (a per-process memory cache here): every
    test starts with none used."""
    cache.clear()
    yield
    cache.clear()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Say so when a test failed on a store it did not request."""
    report = yield
    missing = [name for name in STORE_FIXTURES if name not in item.fixturenames]
    output = report.longreprtext + report.capstderr + report.caplog  # a 503 page logs why
    if report.failed and missing and _NOT_REQUESTED_TRACE.search(output):
        report.sections.append(
            (
                "stores this test did not request",
                f"The test did not request {', '.join(missing)}: those settings point at "
                f"{CLOSED} or under /dev/null. Request the fixture of each store it "
                "touches (mongo, memory_dir, neo4j, broker; stores for all four).",
            )
        )
    return report


# --- the services, started once per session, on first request --------------------------


@pytest.fixture(scope="session")
def mongo_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SecantusService]:
    server = SecantusService(tmp_path_factory.mktemp("secantus"))
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def neo4j_uri() -> Iterator[str]:
    # a home per pytest-xdist worker (``make test`` runs two): each has a server of its own
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    service = Neo4jService(ROOT / "var" / (f"neo4j-test-{worker}" if worker else "neo4j-test"))
    uri = service.start(reuse_uri=os.environ.get("QQ_TEST_NEO4J_URI", ""))
    with GraphDatabase.driver(uri) as driver:  # plans the pages' reads, as `make dev` does
        GraphStore(driver).warm_up()
    yield uri
    service.stop(keep=os.environ.get("QQ_KEEP_NEO4J") == "1")


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    url, proc = start_redis(tmp_path_factory.mktemp("redis"))
    yield url
    stop(proc)


# --- one clean store per test -------------------------------------------------------------


@pytest.fixture
def mongo(
    unrequested_stores_are_unreachable: None,
    settings: Any,
    mongo_server: SecantusService,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[str]:
    """A fresh MongoDB database for this test, with the agent's indexes; yields its name."""
    settings.MONGODB_URI = mongo_server.uri
    settings.QQ_VECTOR_DIR = tmp_path_factory.mktemp("vectors")
    # the first page of a test loads the read model: wait for it as long as a loaded
    # machine needs (it answers as soon as it is ready); the loading test sets its own
    monkeypatch.setattr(overview_selectors, "READ_MODEL_WAIT_S", 10.0)
    # a first search waits for the index as long as it takes on a busy machine; the
    # "loading (N of M notes)" answer has its own tests, with a short wait
    monkeypatch.setattr(memory_stores, "VECTOR_READY_TIMEOUT_S", 60.0)
    settings.QQ_MONGO_DB = database = f"qqtest_{os.getpid()}_{next(_db_numbers)}"
    forget_cached_health()
    notes_store().ensure_indexes()
    yield database
    forget_cached_health()
    vector_indexes_close()  # stop the search indexes' change-stream threads of this test
    # with a patient client: the stores' 2 s timeout is for a store that is down, and a
    # loaded machine (two test workers) can keep the server busy that long
    with MongoClient(mongo_server.uri, serverSelectionTimeoutMS=30_000) as patient:
        patient.drop_database(database)


@pytest.fixture
def memory_dir(unrequested_stores_are_unreachable: None, settings: Any, tmp_path: Path) -> Path:
    """An empty memory directory for this test."""
    path = tmp_path / "memory"
    path.mkdir()
    settings.MEMORY_DIR = path
    forget_cached_health()
    return path


@pytest.fixture
def neo4j(unrequested_stores_are_unreachable: None, settings: Any, neo4j_uri: str) -> str:
    """An empty graph for this test; returns the Bolt URI."""
    settings.NEO4J_URI = neo4j_uri
    forget_cached_health()
    graph_store().delete_everything()
    return neo4j_uri


@pytest.fixture
def broker(unrequested_stores_are_unreachable: None, settings: Any, redis_url: str) -> str:
    """Redis as the Celery broker and result backend; returns its URL."""
    settings.CELERY_BROKER_URL = redis_url
    celery_uses(redis_url)
    forget_cached_health()
    return redis_url


@pytest.fixture
def stores(
    mongo: str, memory_dir: Path, neo4j: str, broker: str, mongo_server: SecantusService
) -> dict[str, Any]:
    """Every store, each clean: for tests that use them all."""
    return {"memory_dir": memory_dir, "mongo_uri": mongo_server.uri, "neo4j_uri": neo4j}
