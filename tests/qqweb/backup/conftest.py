"""Stores with the demo memory in them (notes, memory files, graph, facts), plus what the
demo does not plant but an agent can write: nanosecond, local and named-zone DateTimes,
a 64-bit integer and a per-agent notes file. (A memory-file line that is not UTF-8 and an
archive line a restore would refuse are refused by an import: ``test_import_checks.py``.)"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from bson.int64 import Int64
from django.core.management import call_command

from graph_app.stores import graph_store
from memory_app.notes.lib import NotesManager
from memory_app.notes.stores import notes_store
from qqweb.lib.clients import facts_mongo_client, mongo_client, neo4j_driver
from tests.memory_app.facts.lib.conftest import facts_store

__all__ = ["facts_store"]

_numbers = itertools.count()

PLANTED_GRAPH = """
CREATE (p:Person {name: 'Nano', first_seen: datetime('2024-05-01T10:11:12.123456789Z'),
        last_seen: localdatetime('2024-05-01T10:11:12.987654321'),
        zoned: datetime('2024-05-01T10:11:12.5[Europe/Paris]'), mention_count: 3,
        confidence: 0.75, aliases: ['N', 'Nanosecond']})
CREATE (s:Source {source_id: 'session:nano',
        first_seen: datetime('2024-05-01T00:00:00.000000001Z')})
CREATE (p)-[:EXTRACTED_FROM {first_seen: datetime('2024-05-01T10:11:12.000000007Z')}]->(s)
CREATE (s)-[:EVIDENCES {rel_source: 'session:nano', rel_type: 'KNOWS'}]->(p)
CREATE (s)-[:EVIDENCES {rel_source: 'session:nano', rel_type: 'USES'}]->(p)
"""


@pytest.fixture
def demo_stores(stores: dict[str, Any], facts_store: Any) -> dict[str, Any]:
    call_command("seed_demo")
    call_command("seed_facts_demo", "--any-model")
    neo4j_driver().execute_query(PLANTED_GRAPH)
    notes_store().collection.update_one(
        {}, {"$set": {"qqweb_test_counter": Int64(2**40), "small": Int64(7)}}
    )
    NotesManager(memory_dir=stores["memory_dir"], agent_id="scout").add_note(
        "Key Topics", "a per-agent working note"
    )
    return stores


@pytest.fixture
def empty_stores(demo_stores: dict[str, Any], settings: Any, tmp_path: Path) -> Callable[[], Path]:
    """Points every setting at new, empty stores (the demo ones stay, untouched); returns
    a function that does it, giving the new memory directory."""

    def switch() -> Path:
        settings.QQ_MONGO_DB = database = f"qqtest_{os.getpid()}_empty_{next(_numbers)}"
        notes_store().ensure_indexes()
        memory = tmp_path / f"memory-empty-{next(_numbers)}"
        memory.mkdir()
        settings.MEMORY_DIR = memory
        graph_store().delete_everything()
        facts_db = f"factstest_{os.getpid()}_empty_{next(_numbers)}"
        settings.QQ_FACTS_MONGO_URI = demo_stores["mongo_uri"].rstrip("/") + "/" + facts_db
        cleanups.append((database, facts_db))
        return memory

    cleanups: list[tuple[str, str]] = []
    yield switch  # type: ignore[misc]
    for database, facts_db in cleanups:
        mongo_client().drop_database(database)
        facts_mongo_client().drop_database(facts_db)


@pytest.fixture(autouse=True)
def pins_database(request: pytest.FixtureRequest) -> None:
    """An export writes the memory tests' pins and an import puts them back: both read
    qqweb's database (a test that has it as ``transactional_db`` keeps that)."""
    if "transactional_db" not in request.fixturenames:
        request.getfixturevalue("db")
