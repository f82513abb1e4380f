"""The compatibility lint finds each breakage planted as the agent or a careless tool
would leave it (raw inserts, on purpose), on the real SecantusDB."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
from bson import Binary, ObjectId

from memory_app.facts.lib import FactsStore
from memory_app.facts.lib.lint import BREAKS, INFO, WARNING, agent_broken, lint
from memory_app.facts.lib.rules import cleanup_plan, retrieval_top
from tests.memory_app.facts.lib.vectors import unit

T0 = datetime(2026, 1, 1, 12, 0, 0)


def good(content: str = "The user likes tea.", **change: Any) -> dict[str, Any]:
    return {
        "_id": ObjectId(),
        "type": "fact",
        "content": content,
        "content_embedding": unit(0),
        "timestamp": T0,
        "metadata": {},
        **change,
    }


def findings(store: FactsStore) -> list[Any]:
    return lint(store.documents(), store.indexes())


def codes(store: FactsStore) -> dict[str, str]:
    return {f.code: f.severity for f in findings(store)}


def test_a_clean_collection_has_only_the_text_index_note(facts_store: FactsStore) -> None:
    facts_store.collection.insert_many([good(), good("Another.")])
    assert [(f.code, f.severity) for f in findings(facts_store)] == [("text_index_absent", INFO)]


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"content_embedding": [0.1] * 1024}, "vector_length"),
        ({"content_embedding": None}, "vector_null"),
        ({"content_embedding": Binary(b"\x00" * 1536, 9)}, "vector_binary"),
        ({"content_embedding": ["0.1"] * 384}, "vector_type"),
        ({"content_embedding": "0.1, 0.2"}, "vector_type"),
        ({"content_embedding": [float("nan")] * 384}, "vector_not_finite"),
        ({"_id": "fact-1"}, "id_not_objectid"),
    ],
)
def test_it_finds_what_breaks_the_agent(
    facts_store: FactsStore, change: dict[str, Any], code: str
) -> None:
    facts_store.collection.insert_many([good(), good("Planted.", **change)])
    found = codes(facts_store)
    assert found.get(code) == BREAKS
    assert agent_broken(findings(facts_store))


def test_one_bad_vector_turns_off_retrieval_and_the_cleanup(facts_store: FactsStore) -> None:
    facts_store.collection.insert_many([good(), good("Bad.", content_embedding=None)])
    facts = facts_store.facts()
    assert retrieval_top(unit(0), facts).injected == []
    assert cleanup_plan(facts).aborted


@pytest.mark.parametrize(
    "change",
    [{"timestamp": "2025-04-20T00:25:00"}, {"timestamp": None}, {"timestamp": 1745000000}],
)
def test_it_warns_about_a_timestamp_that_is_not_a_date(
    facts_store: FactsStore, change: dict[str, Any]
) -> None:
    facts_store.collection.insert_many([good(), good("Odd time.", **change)])
    assert codes(facts_store)["timestamp_not_date"] == WARNING


def test_it_warns_about_a_missing_timestamp(facts_store: FactsStore) -> None:
    doc = good("No time.")
    del doc["timestamp"]
    facts_store.collection.insert_one(doc)
    assert codes(facts_store)["timestamp_not_date"] == WARNING


def test_it_finds_a_unique_index_on_a_field_facts_lack(facts_store: FactsStore) -> None:
    facts_store.collection.insert_one(good())
    facts_store.collection.create_index("note_id", unique=True)
    found = [f for f in findings(facts_store) if f.code == "unique_index"]
    assert len(found) == 1
    assert found[0].severity == BREAKS
    assert "note_id" in found[0].message


def test_skipped_vectors_and_legacy_documents_are_informational(
    facts_store: FactsStore,
) -> None:
    legacy = good("Old.")
    del legacy["content_embedding"]
    facts_store.collection.insert_many(
        [
            good("Empty.", content_embedding=[]),
            good("Zero.", content_embedding=[0.0] * 384),
            legacy,
            {"_id": ObjectId(), "user_input": "a", "llm_response": "b", "timestamp": T0},
        ]
    )
    found = codes(facts_store)
    assert found["vector_empty"] == found["vector_zero"] == INFO
    assert found["legacy_fact"] == found["legacy_turn"] == INFO
    assert not agent_broken(findings(facts_store))


def test_a_document_of_another_type_is_a_warning(facts_store: FactsStore) -> None:
    facts_store.collection.insert_many(
        [good(), {"_id": ObjectId(), "type": "archived", "content": "x"}]
    )
    assert codes(facts_store)["foreign_document"] == WARNING


def test_breakages_come_first(facts_store: FactsStore) -> None:
    facts_store.collection.insert_many([good(timestamp="x"), good(content_embedding=None)])
    assert findings(facts_store)[0].severity == BREAKS


def test_a_text_index_under_another_name_is_flagged_and_the_agents_own_is_not() -> None:
    # As MongoDB lists text indexes (SecantusDB has none): the internal key, the fields
    # under weights.
    def text_index(name: str) -> dict[str, Any]:
        key = {"_fts": "text", "_ftsx": 1}
        return {"name": name, "key": key, "weights": {"content": 1}}

    ids = {"name": "_id_", "key": {"_id": 1}}
    theirs = lint([], [ids, text_index("content_text")])
    assert [(f.code, f.severity, f.target) for f in theirs] == [
        ("foreign_text_index", WARNING, "index content_text")
    ]
    assert lint([], [ids, text_index("fact_content_search")]) == []


def test_a_content_that_is_not_a_string_is_a_warning(facts_store: FactsStore) -> None:
    facts_store.collection.insert_many([good(), good(content=42)])
    assert codes(facts_store)["content_not_string"] == WARNING
