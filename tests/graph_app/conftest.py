"""A knowledge graph planted the way the agent writes it, and an exact dump of the whole
graph to compare before and after curation and undo."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from graph_app.knowledge.snapshots import encode
from graph_app.stores import graph_store
from qqweb.lib.clients import neo4j_driver
from tests.helpers import add_note, vector

NOW = datetime(2026, 11, 1, tzinfo=UTC)


def run_cypher(text: str, **params: Any) -> list[dict[str, Any]]:
    records, _, _ = neo4j_driver().execute_query(text, parameters_=params)
    return [r.data() for r in records]


def graph_dump() -> list[str]:
    """Every node (labels, every property) and relationship (ends by label and key, type,
    every property), exactly (nanoseconds included), in a stable order."""
    nodes = run_cypher("MATCH (n) RETURN labels(n) AS labels, properties(n) AS props")
    rels = run_cypher(
        """MATCH (a)-[r]->(b)
        RETURN labels(a) AS a, coalesce(a.name, a.source_id) AS ak, type(r) AS type,
               labels(b) AS b, coalesce(b.name, b.source_id) AS bk, properties(r) AS props"""
    )
    return sorted(json.dumps(encode(x), sort_keys=True) for x in [*nodes, *rels])


def embed_every_entity() -> None:
    """Give every entity the test embedder's vector of its ``"name: description"``."""
    store = graph_store()
    store.set_embeddings(
        [
            {"id": e.id, "embedding": vector(f"{e.name}: {e.description or ''}")}
            for e in store.list_entities(limit=1000).items
        ]
    )


@pytest.fixture
def graph(stores):
    store = graph_store()
    store.merge_entities(
        "Person",
        [
            {
                "name": f"Person {i:02d}",
                "props": {
                    "description": f"person number {i}",
                    "mention_count": i,
                    "last_seen": NOW - timedelta(days=i),
                },
            }
            for i in range(25)
        ],
    )
    store.merge_entities(
        "Project",
        [
            {
                "name": "Lumen",
                "props": {
                    "description": "a retrieval service",
                    "mention_count": 40,
                    "aliases": ["lumen-rag"],
                    "first_seen": NOW - timedelta(days=90),
                    "embedding": vector("Lumen: a retrieval service"),
                },
            }
        ],
    )
    store.merge_entities(
        "Software",
        [
            {"name": "Lumen", "props": {"description": "the package"}},
            {"name": "MongoDB", "props": {"mention_count": 7}},
        ],
    )
    store.merge_relationships(
        "Project",
        "USES",
        "Software",
        [{"a": "Lumen", "b": "MongoDB", "props": {"mention_count": 3, "evidence": "said so"}}],
    )
    store.merge_relationships(
        "Person", "WORKS_ON", "Project", [{"a": "Person 03", "b": "Lumen", "props": {}}]
    )
    store.link_source(
        ("Project", "Lumen"),
        "session:abc",
        {"source_type": "conversation"},
        rel_type="USES",
        rel_source="session:abc",
    )
    add_note("note_0000000000a1", "Lumen uses MongoDB for vector search")
    add_note("note_0000000000a2", "We renamed lumen-rag last week")
    add_note("note_0000000000a3", "Priya reviews pull requests")
    # a DateTime with nanoseconds, as Cypher's datetime() writes it
    run_cypher(
        "MATCH (n:Project {name: 'Lumen'}) SET n.last_seen = datetime($iso)",
        iso="2026-10-30T08:15:42.123456789Z",
    )
