"""Real Celery worker processes: on the tests' Redis broker (``celery_worker``), on the
broker ``make dev`` runs (``dev_broker_worker``), or a ``make dev`` broker of the test's
own (``own_dev_broker``). See tests/conftest.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memory_app.notes.stores import notes_store, vector_indexes_close
from qqweb.health import forget_cached_health
from tests.plugins.database import child_database_url
from tests.secantus_service import SecantusService
from tests.services import CLOSED, celery_uses, start_celery_worker, stop


@pytest.fixture(scope="session")
def worker_process(
    tmp_path_factory: pytest.TempPathFactory,
    mongo_server: SecantusService,
    neo4j_uri: str,
    redis_url: str,
) -> Iterator[dict[str, str]]:
    """A real worker process on the real Redis broker, seeing the same services; yields
    its environment."""
    workdir = tmp_path_factory.mktemp("worker")
    memory_dir = workdir / "memory"
    memory_dir.mkdir()
    env = {
        "DJANGO_SETTINGS_MODULE": "qqweb.settings",
        "MONGODB_URI": mongo_server.uri,
        "QQ_MONGO_DB": "qqtest_worker",
        "NEO4J_URI": neo4j_uri,
        "MEMORY_DIR": str(memory_dir),
        "CELERY_BROKER_URL": redis_url,
        "CELERY_RESULT_BACKEND": redis_url,
        "QQ_EMBEDDING_BACKEND": "hashing",
        "QQ_BACKUP_DIR": str(workdir / "backups"),
        "DATABASE_URL": child_database_url(),
        "QQ_HEARTBEAT_INTERVAL_S": "2",  # a transactional test's flush empties its table
    }
    proc = start_celery_worker(env, workdir)
    yield env
    stop(proc)


@pytest.fixture
def celery_worker(stores: dict[str, Any], worker_process: dict[str, str]) -> dict[str, str]:
    """The worker, and every store for this test (the worker uses them all); returns the
    worker's environment."""
    return worker_process


@pytest.fixture(scope="session")
def dev_broker_worker_process(
    tmp_path_factory: pytest.TempPathFactory, mongo_server: SecantusService, neo4j_uri: str
) -> Iterator[dict[str, str]]:
    """A real worker started as ``scripts/dev.sh`` starts it (thread pool, two threads) on
    the broker ``make dev`` uses when CELERY_BROKER_URL is unset: kombu's SQLAlchemy
    transport and the database result backend, on SQLite files of their own (the settings
    derive the transport options from the URL, as for ``make dev``). Yields its
    environment."""
    workdir = tmp_path_factory.mktemp("dev-worker")
    memory_dir = workdir / "memory"
    memory_dir.mkdir()
    env = {
        "DJANGO_SETTINGS_MODULE": "qqweb.settings",
        "MONGODB_URI": mongo_server.uri,
        "QQ_MONGO_DB": "qqtest_dev_worker",
        "NEO4J_URI": neo4j_uri,
        "MEMORY_DIR": str(memory_dir),
        "CELERY_BROKER_URL": f"sqla+sqlite:///{workdir / 'celery-broker.sqlite3'}",
        "CELERY_RESULT_BACKEND": f"db+sqlite:///{workdir / 'celery-results.sqlite3'}",
        "QQ_EMBEDDING_BACKEND": "hashing",
        "DATABASE_URL": child_database_url(),
        "QQ_HEARTBEAT_INTERVAL_S": "2",  # a transactional test's flush empties its table
    }
    proc = start_celery_worker(
        env, workdir, name="qqweb-dev-broker", pool=("--pool=threads", "--concurrency=2")
    )
    yield env
    stop(proc)


@pytest.fixture
def dev_broker_worker(
    stores: dict[str, Any], settings: Any, dev_broker_worker_process: dict[str, str]
) -> Iterator[dict[str, str]]:
    """The ``make dev`` broker and its worker, and every store for this test; the notes
    database and memory directory are the worker's (emptied before and after). Returns
    the worker's environment."""
    env = dev_broker_worker_process
    settings.CELERY_BROKER_URL = env["CELERY_BROKER_URL"]
    settings.CELERY_RESULT_BACKEND = env["CELERY_RESULT_BACKEND"]
    celery_uses(env["CELERY_BROKER_URL"], env["CELERY_RESULT_BACKEND"])
    settings.QQ_MONGO_DB = env["QQ_MONGO_DB"]
    settings.MEMORY_DIR = Path(env["MEMORY_DIR"])
    forget_cached_health()
    store = notes_store()
    store.ensure_indexes()
    store.clear_all()
    yield env
    vector_indexes_close()
    notes_store().clear_all()


@pytest.fixture
def own_dev_broker(stores: dict[str, Any], settings: Any, tmp_path: Path) -> dict[str, str]:
    """Every store, and a broker of this test's own in place of Redis, configured as
    ``make dev`` configures it (SQLite files), that no session worker consumes: a job
    queued there waits. Returns the environment for a worker or beat started on it."""
    env = {
        "DJANGO_SETTINGS_MODULE": "qqweb.settings",
        "CELERY_BROKER_URL": f"sqla+sqlite:///{tmp_path / 'celery-broker.sqlite3'}",
        "CELERY_RESULT_BACKEND": f"db+sqlite:///{tmp_path / 'celery-results.sqlite3'}",
        "DATABASE_URL": child_database_url(),
        "MONGODB_URI": f"mongodb://{CLOSED}/",
        "NEO4J_URI": f"bolt://{CLOSED}",
        "QQ_EMBEDDING_BACKEND": "hashing",
        "QQ_HEARTBEAT_INTERVAL_S": "1",
    }
    settings.CELERY_BROKER_URL = env["CELERY_BROKER_URL"]
    settings.CELERY_RESULT_BACKEND = env["CELERY_RESULT_BACKEND"]
    celery_uses(env["CELERY_BROKER_URL"], env["CELERY_RESULT_BACKEND"])
    return env
