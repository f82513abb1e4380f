"""The typed entities the graph store returns: the data contract's properties are fields,
whatever else the agent writes (or a contract property of an unexpected type) is kept in
``extra`` as read, never dropped."""

from __future__ import annotations

from datetime import UTC, datetime

from graph_app.knowledge.domain import Entity
from graph_app.stores import graph_store
from tests.graph_app.conftest import run_cypher

SEEN = datetime(2026, 10, 30, 8, 15, tzinfo=UTC)


def test_contract_properties_become_fields():
    entity = Entity.from_properties(
        "4:x:1",
        ["Project"],
        {
            "name": "Lumen",
            "description": "a retrieval service",
            "aliases": ["lumen-rag"],
            "mention_count": 40,
            "last_seen": SEEN,
            "confidence": 1,
            "embedding": [0.1, 0.2, 0.3],
        },
    )
    assert (entity.label, entity.name, entity.aliases) == ("Project", "Lumen", ("lumen-rag",))
    assert entity.mentions == 40 and entity.last_seen == SEEN and entity.confidence == 1
    assert entity.embedding_dimension == 3 and entity.extra == {}
    assert entity.first_seen is None and entity.ref.name == "Lumen"


def test_unknown_properties_and_odd_values_are_kept_in_extra():
    entity = Entity.from_properties(
        "4:x:2",
        ["Concept"],
        {"name": "x", "mood": "curious", "mention_count": "7", "aliases": ["a", 3]},
    )
    assert entity.extra == {"mood": "curious", "mention_count": "7", "aliases": ["a", 3]}
    assert entity.mentions == 0 and entity.aliases == ()
    assert entity.properties() == {
        "name": "x",
        "mood": "curious",
        "mention_count": "7",
        "aliases": ["a", 3],
    }


def test_an_entity_without_a_name_keeps_what_it_has():
    entity = Entity.from_properties("4:x:3", [], {"name": 42})
    assert entity.name == "" and entity.label == "" and entity.extra == {"name": 42}
    assert entity.properties() == {"name": 42}


def test_the_store_returns_every_property_the_agent_wrote(viewer_client, graph):
    run_cypher(
        "MATCH (n:Project {name: 'Lumen'}) SET n.owner_team = 'search', n.notes = 'from a chat'"
    )
    (lumen,) = graph_store().get_entities("Project", "Lumen")
    assert lumen.extra == {"owner_team": "search"} and lumen.notes == "from a chat"
    assert lumen.mentions == 40 and lumen.embedding_dimension == 384
    assert lumen.last_seen is not None and lumen.last_seen.microsecond == 123456
    body = viewer_client.get("/api/graph/entities/Project/Lumen").json()
    assert body["properties"]["owner_team"] == "search"
    assert body["properties"]["notes"] == "from a chat"
    assert "embedding" not in body["properties"] and "aliases" not in body["properties"]
