"""Django's database for the tests: SQLite (the default, a file in var/) or PostgreSQL,
the production choice, with ``QQ_TEST_DATABASE=postgres`` (``make test-postgres``).

For PostgreSQL the run starts a throwaway cluster of its own (tests/services.py,
``PostgresCluster``: Debian's ``postgresql``, a free port, fsync off) before the first
connection, points ``DATABASES["default"]`` at it through the settings' own
``database_config`` (so the options are production's), and stops it at the end. Django
creates its test database there (``test_qqweb``); every process the tests start (Celery
workers, the crash tests' child) gets :func:`child_database_url` and so the same rows."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
from django.apps import apps
from django.conf import settings as django_settings
from django.db import connections

from qqweb.lib.config import database_config
from tests.services import PostgresCluster

CHOICES = ("sqlite", "postgres")
TEST_DATABASE = "test_qqweb"  # Django's test database in the cluster
_cluster_key = pytest.StashKey[PostgresCluster]()


def chosen_database() -> str:
    choice = os.environ.get("QQ_TEST_DATABASE", "") or "sqlite"
    if choice not in CHOICES:
        raise pytest.UsageError(f"QQ_TEST_DATABASE={choice!r}: must be one of {', '.join(CHOICES)}")
    return choice


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Start PostgreSQL and point Django at it, when the run asks for it.

    pytest-django sets Django up before any conftest is read, so Django has its settings
    and an unconnected SQLite wrapper (a model's table name is checked against its
    backend's longest name as the class is made). Nothing has connected yet: the entry is
    replaced, the wrapper dropped, and the next use opens PostgreSQL. Table names that
    PostgreSQL would have cut (63 characters) would differ: the run refuses them."""
    if chosen_database() != "postgres" or config.option.collectonly:
        return
    if getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
        return  # pytest-xdist's controller runs no test: each worker starts its own cluster
    if connections["default"].connection is not None:
        raise pytest.UsageError("a database connection was opened before the tests chose one")
    cluster = PostgresCluster()
    config.stash[_cluster_key] = cluster
    url = cluster.start()
    sqlite_test_path = django_settings.DATABASES["default"].get("TEST", {}).get("NAME", "")
    database = database_config(url, sqlite_test_path=sqlite_test_path)
    # Named here: once Django has created it, the connection's NAME is this name too, so
    # child_database_url reads it from TEST.
    database["TEST"] = {"NAME": TEST_DATABASE}
    django_settings.DATABASES["default"] = database
    # ``connections`` read DATABASES already (the same dict): give the new entry the
    # defaults it gives every entry (ATOMIC_REQUESTS, TIME_ZONE, ...), and forget the
    # SQLite wrapper.
    connections.configure_settings(django_settings.DATABASES)
    del connections["default"]
    longest = connections["default"].ops.max_name_length()
    too_long = [m._meta.db_table for m in apps.get_models() if len(m._meta.db_table) > longest]
    if too_long:
        raise pytest.UsageError(f"table names longer than PostgreSQL's {longest}: {too_long}")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On PostgreSQL, the tests marked ``sqlite`` (SQLite's own configuration: WAL, its busy
    timeout) are deselected, and listed as deselected."""
    if chosen_database() != "postgres":
        return
    deselected = [item for item in items if item.get_closest_marker("sqlite")]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = [item for item in items if not item.get_closest_marker("sqlite")]


def pytest_unconfigure(config: pytest.Config) -> None:
    cluster = config.stash.get(_cluster_key, None)
    if cluster is not None:
        connections.close_all()
        cluster.stop()


def pytest_report_header(config: pytest.Config) -> str:
    cluster = config.stash.get(_cluster_key, None)
    if cluster is None and chosen_database() == "postgres":
        return "database: PostgreSQL, a cluster per test worker (QQ_TEST_DATABASE=postgres)"
    if cluster is None:
        return f"database: SQLite, {django_settings.DATABASES['default']['TEST']['NAME']}"
    return f"database: PostgreSQL {cluster.version}, {cluster.url} (QQ_TEST_DATABASE=postgres)"


def child_database_url() -> str:
    """The URL of the tests' database (Django's test database, not the one it is named
    after) for a process the tests start."""
    config = django_settings.DATABASES["default"]
    if config["ENGINE"] == "django.db.backends.sqlite3":
        return f"sqlite:///{config['TEST']['NAME']}"
    return f"postgres://{config['USER']}@{config['HOST']}:{config['PORT']}/{config['TEST']['NAME']}"


@pytest.fixture
def dev_database_url(request: pytest.FixtureRequest) -> Iterator[str | None]:
    """The ``DATABASE_URL`` for a ``make dev`` a test starts: None on SQLite (``make dev``'s
    own default, a file in its var folder); on PostgreSQL, an empty database of its own in
    the tests' cluster (dropped afterwards), so ``make dev`` runs there as a user runs it
    on PostgreSQL (docs/development.md)."""
    cluster = request.config.stash.get(_cluster_key, None)
    if cluster is None:
        yield None
        return
    name = f"qqweb_dev_{uuid.uuid4().hex[:12]}"
    url = cluster.create_database(name)
    yield url
    cluster.drop_database(name)
