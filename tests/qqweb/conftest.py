"""The crash tests' child process and the stores it reaches (test_crash_recovery*.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.crashing import CrashServer
from tests.plugins.database import child_database_url


@pytest.fixture(scope="module")
def crash_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CrashServer]:
    env = {
        "DJANGO_SETTINGS_MODULE": "qqweb.settings",
        "DATABASE_URL": child_database_url(),
        "QQ_EMBEDDING_BACKEND": "hashing",
        "QQ_EMBEDDING_DIMENSION": "384",
        "QQ_EMBEDDER_WARM_UP": "0",
    }
    server = CrashServer(env, tmp_path_factory.mktemp("crash"))
    yield server
    server.close()


@pytest.fixture
def child_stores(stores: dict[str, Any], settings: Any, tmp_path: Path) -> dict[str, Any]:
    """The settings a child needs to reach this test's stores (its own vector directory)."""
    return {
        "MONGODB_URI": settings.MONGODB_URI,
        "QQ_MONGO_DB": settings.QQ_MONGO_DB,
        "NEO4J_URI": settings.NEO4J_URI,
        "MEMORY_DIR": str(settings.MEMORY_DIR),
        "QQ_VECTOR_DIR": str(tmp_path / "child-vectors"),
        "QQ_BACKUP_DIR": str(settings.QQ_BACKUP_DIR),
    }
