from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from typing import Any

import pytest

from memory_app.facts.lib import FactsStore
from memory_app.facts.stores import facts_store as facts_store_from_settings
from qqweb.lib.clients import facts_mongo_client

_numbers = itertools.count()


@pytest.fixture
def facts_store(stores: dict[str, Any], settings: Any) -> Iterator[FactsStore]:
    """The facts store on the test SecantusDB: the database named in the URI's path, as
    the agent has it, fresh for each test."""
    database = f"factstest_{os.getpid()}_{next(_numbers)}"
    settings.QQ_FACTS_MONGO_URI = stores["mongo_uri"].rstrip("/") + "/" + database
    settings.QQ_FACTS_MONGO_DB = ""
    settings.QQ_FACTS_COLLECTION = "memories"
    store = facts_store_from_settings()
    yield store
    facts_mongo_client().drop_database(database)
