"""Real services for every test: SecantusDB (MongoDB protocol), Neo4j, Redis, and a real
Celery worker for the tests that ask for it. Each test gets its own MongoDB database,
an empty graph and its own memory directory. Nothing is mocked and nothing skips: a
service that cannot start fails the run with the reason."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.contrib.auth.models import Group
from django.test import Client
from secantus import SecantusDBServer

from graph_app.stores import graph_store
from memory_app.stores import notes_store
from qqweb.celery import app as celery_app
from qqweb.clients import mongo_client
from qqweb.health import forget_cached_health
from qqweb.services import roles_ensure
from tests.services import Neo4jService, start_celery_worker, start_redis, stop

ROOT = Path(__file__).resolve().parent.parent
_db_numbers = itertools.count(1)


@pytest.fixture(scope="session")
def mongo_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SecantusDBServer]:
    server = SecantusDBServer(storage_path=str(tmp_path_factory.mktemp("secantus")), port=0)
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def neo4j_uri() -> Iterator[str]:
    service = Neo4jService(ROOT / "var" / "neo4j-test")
    uri = service.start(reuse_uri=os.environ.get("QQ_TEST_NEO4J_URI", ""))
    yield uri
    service.stop(keep=os.environ.get("QQ_KEEP_NEO4J") == "1")


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    url, proc = start_redis(tmp_path_factory.mktemp("redis"))
    yield url
    stop(proc)


@pytest.fixture(autouse=True)
def stores(
    settings: Any,
    tmp_path: Path,
    mongo_server: SecantusDBServer,
    neo4j_uri: str,
    redis_url: str,
) -> Iterator[dict[str, Any]]:
    """Point every store at the test services, with a fresh database / graph / memory dir."""
    memory_dir = tmp_path / "memory"
    memory_dir.mkdir()
    settings.MONGODB_URI = mongo_server.uri
    settings.QQ_MONGO_DB = f"qqtest_{os.getpid()}_{next(_db_numbers)}"
    settings.NEO4J_URI = neo4j_uri
    settings.MEMORY_DIR = memory_dir
    settings.QQ_EMBEDDING_BACKEND = "hashing"
    settings.QQ_EMBEDDING_DIMENSION = 384
    settings.CELERY_BROKER_URL = redis_url
    celery_app.conf.broker_url = redis_url  # the app read its settings once already
    celery_app.conf.result_backend = redis_url
    forget_cached_health()
    graph_store().delete_everything()
    client, database = mongo_client(), settings.QQ_MONGO_DB
    notes_store().ensure_indexes()
    yield {"memory_dir": memory_dir, "mongo_uri": mongo_server.uri, "neo4j_uri": neo4j_uri}
    forget_cached_health()
    client.drop_database(database)


@pytest.fixture(scope="session")
def celery_worker(
    tmp_path_factory: pytest.TempPathFactory,
    mongo_server: SecantusDBServer,
    neo4j_uri: str,
    redis_url: str,
) -> Iterator[dict[str, str]]:
    """A real worker process on the real Redis broker, seeing the same stores."""
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
        "DATABASE_URL": f"sqlite:///{django_settings.DATABASES['default']['TEST']['NAME']}",
    }
    celery_app.conf.broker_url = redis_url
    celery_app.conf.result_backend = redis_url
    proc = start_celery_worker(env, workdir)
    yield env
    stop(proc)


# --- personas ------------------------------------------------------------------------------


def _user_with_role(django_user_model: Any, username: str, role: str | None) -> Any:
    roles_ensure()
    user = django_user_model.objects.create_user(username=username, password="pw-" + username)
    if role:
        user.groups.add(Group.objects.get(name=role))
    return user


@pytest.fixture
def viewer(db: None, django_user_model: Any) -> Any:
    return _user_with_role(django_user_model, "vera-viewer", "viewer")


@pytest.fixture
def curator(db: None, django_user_model: Any) -> Any:
    return _user_with_role(django_user_model, "cora-curator", "curator")


@pytest.fixture
def admin_user(db: None, django_user_model: Any) -> Any:
    return _user_with_role(django_user_model, "ada-admin", "admin")


@pytest.fixture
def outsider(db: None, django_user_model: Any) -> Any:
    """Logged in, but holding no role."""
    return _user_with_role(django_user_model, "otto-outsider", None)


def _client_for(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def viewer_client(viewer: Any) -> Client:
    return _client_for(viewer)


@pytest.fixture
def curator_client(curator: Any) -> Client:
    return _client_for(curator)


@pytest.fixture
def admin_client_(admin_user: Any) -> Client:
    return _client_for(admin_user)
