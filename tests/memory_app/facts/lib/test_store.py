"""The facts store against the real SecantusDB: typed reads, keyset pages newest first,
inserting only into an empty collection, the layout guard both ways."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from bson import ObjectId

from memory_app.facts.lib import Fact, FactNotFound, FactQuery, FactsStore, LegacyTurn
from memory_app.facts.lib.domain import MISSING, ForeignDocument
from memory_app.facts.lib.errors import InvalidFact
from memory_app.facts.lib.store import check_agent_document
from memory_app.notes.stores import notes_store
from qqweb.lib.mongo.layouts import Layout, WrongLayout
from tests.helpers import add_note
from tests.memory_app.facts.lib.vectors import unit

T0 = datetime(2026, 1, 1, 12, 0, 0)


def agent_fact(content: str, minutes: int, vector: Any = None) -> dict[str, Any]:
    return {
        "_id": ObjectId(),
        "type": "fact",
        "content": content,
        "content_embedding": vector or unit(minutes % 384),
        "timestamp": T0 + timedelta(minutes=minutes),
        "metadata": {},
    }


def test_it_reads_facts_turns_and_other_documents_typed(facts_store: FactsStore) -> None:
    fact = agent_fact("The user likes tea.", 0)
    turn = {
        "_id": ObjectId(),
        "user_input": "hi",
        "llm_response": "hello",
        "timestamp": T0,
        "metadata": {},
    }
    legacy = {k: v for k, v in agent_fact("Old fact.", 1).items() if k != "content_embedding"}
    odd = {"_id": "not-an-oid", "type": "note", "content": "x", "qqweb_flag": 1}
    facts_store.collection.insert_many([fact, turn, legacy, odd])
    docs = {d.hex_id: d for d in facts_store.documents()}
    got = docs[str(fact["_id"])]
    assert isinstance(got, Fact) and got.content == "The user likes tea."
    assert got.to_document() == fact
    assert isinstance(docs[str(turn["_id"])], LegacyTurn)
    assert docs[str(turn["_id"])].to_document() == turn
    legacy_fact = docs[str(legacy["_id"])]
    assert isinstance(legacy_fact, Fact) and legacy_fact.is_legacy
    assert legacy_fact.content_embedding is MISSING
    assert legacy_fact.to_document() == legacy
    foreign = docs["not-an-oid"]
    assert isinstance(foreign, ForeignDocument)
    assert foreign.to_document() == odd
    assert facts_store.get("not-an-oid").hex_id == "not-an-oid"


def test_unknown_fields_are_kept(facts_store: FactsStore) -> None:
    doc = {**agent_fact("x", 0), "curated_by": "someone"}
    facts_store.collection.insert_one(doc)
    fact = facts_store.get(str(doc["_id"]))
    assert fact.extra == {"curated_by": "someone"}
    assert fact.to_document() == doc


def test_a_missing_fact_is_not_found(facts_store: FactsStore) -> None:
    with pytest.raises(FactNotFound):
        facts_store.get(str(ObjectId()))


def test_pages_are_newest_first_on_timestamp_then_id(facts_store: FactsStore) -> None:
    docs = [agent_fact(f"fact {i}", i // 2) for i in range(9)]  # pairs share a timestamp
    docs.append({**agent_fact("string time", 0), "timestamp": "2025-04-20"})
    docs.append({k: v for k, v in agent_fact("no time", 0).items() if k != "timestamp"})
    facts_store.collection.insert_many(docs)
    seen: list[str] = []
    cursor = None
    while True:
        page = facts_store.page(cursor=cursor, limit=4)
        seen += [d.hex_id for d in page.items]
        cursor = page.next_cursor
        if cursor is None:
            break
    dated = sorted(docs[:9], key=lambda d: (d["timestamp"], d["_id"]), reverse=True)
    assert seen[:9] == [str(d["_id"]) for d in dated]
    assert set(seen[9:]) == {str(docs[9]["_id"]), str(docs[10]["_id"])}
    assert len(seen) == len(set(seen)) == 11


def test_pages_filter_by_text_ids_and_legacy(facts_store: FactsStore) -> None:
    tea, coffee = agent_fact("Likes TEA a lot.", 0), agent_fact("Likes coffee.", 1)
    legacy = {k: v for k, v in agent_fact("old", 2).items() if k != "content_embedding"}
    turn = {
        "_id": ObjectId(),
        "user_input": "a",
        "llm_response": "b",
        "timestamp": T0,
        "metadata": {},
    }
    facts_store.collection.insert_many([tea, coffee, legacy, turn])
    assert [d.hex_id for d in facts_store.page(FactQuery(text="tea")).items] == [str(tea["_id"])]
    assert [d.hex_id for d in facts_store.page(FactQuery(ids=(coffee["_id"],))).items] == [
        str(coffee["_id"])
    ]
    assert {d.hex_id for d in facts_store.page(FactQuery(legacy=True)).items} == {
        str(legacy["_id"]),
        str(turn["_id"]),
    }
    with pytest.raises(InvalidFact):
        facts_store.page(cursor="nonsense")


def test_it_inserts_demo_documents_only_into_an_empty_collection(
    facts_store: FactsStore,
) -> None:
    assert facts_store.insert_into_empty([agent_fact("a", 0)]) == 1
    with pytest.raises(InvalidFact, match="not empty"):
        facts_store.insert_into_empty([agent_fact("b", 1)])
    assert facts_store.count() == 1


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"_id": "abc"}, "_id"),
        ({"timestamp": "2025-01-01"}, "timestamp"),
        ({"type": "Fact"}, "type"),
        ({"content_embedding": None}, "content_embedding"),
        ({"content_embedding": [1] * 384}, "content_embedding"),
        ({"content_embedding": [0.1] * 1024}, "content_embedding"),
        ({"metadata": None}, "metadata"),
    ],
)
def test_it_refuses_a_document_the_agent_could_not_live_with(
    change: dict[str, Any], field: str
) -> None:
    with pytest.raises(InvalidFact) as caught:
        check_agent_document({**agent_fact("x", 0), **change})
    assert caught.value.field == field


def test_the_facts_store_refuses_to_write_to_a_qq_notes_collection(
    stores: dict[str, Any], settings: Any
) -> None:
    add_note("n1", "A qq note.")
    store = notes_store()
    database, collection = store.location
    facts = FactsStore(store.client, database, collection)
    assert facts.layout().layout is Layout.QQ_NOTES
    with pytest.raises(WrongLayout, match="qq notes layout"):
        facts.insert_into_empty([agent_fact("x", 0)])


def test_the_notes_store_refuses_to_write_to_a_facts_collection(
    facts_store: FactsStore, settings: Any
) -> None:
    facts_store.insert_into_empty([agent_fact("The user likes tea.", 0)])
    database, collection = facts_store.location
    settings.QQ_MONGO_DB, settings.QQ_MONGO_COLLECTION = database, collection
    store = notes_store()
    with pytest.raises(WrongLayout, match="the facts layout") as caught:
        store.upsert_note("n1", "x", unit(0), "Key Topics")
    assert caught.value.verdict.layout is Layout.FACTS
    with pytest.raises(WrongLayout):
        store.ensure_indexes()
    assert [i["name"] for i in facts_store.indexes()] == ["_id_"]
    assert facts_store.count() == 1


def test_a_notes_reset_pointed_at_the_facts_deletes_nothing(
    facts_store: FactsStore, settings: Any
) -> None:
    # seed_demo --reset and the maintenance passes on a misconfigured QQ_MONGO_COLLECTION.
    facts_store.insert_into_empty([agent_fact("The user likes tea.", 0)])
    settings.QQ_MONGO_DB, settings.QQ_MONGO_COLLECTION = facts_store.location
    store = notes_store()
    with pytest.raises(WrongLayout, match="the facts layout"):
        store.clear_all()
    with pytest.raises(WrongLayout, match="the facts layout"):
        store.bulk_update_importance([{"note_id": "n1", "importance": 0.1}])
    assert facts_store.count() == 1


def test_the_notes_store_refuses_a_collection_with_legacy_turns_only(
    facts_store: FactsStore, settings: Any
) -> None:
    facts_store.collection.insert_one(
        {"_id": ObjectId(), "user_input": "a", "llm_response": "b", "timestamp": T0}
    )
    settings.QQ_MONGO_DB, settings.QQ_MONGO_COLLECTION = facts_store.location
    with pytest.raises(WrongLayout, match="facts"):
        notes_store().upsert_note("n1", "x", unit(0), "Key Topics")


def test_the_facts_store_refuses_a_collection_of_unknown_documents(
    facts_store: FactsStore,
) -> None:
    facts_store.collection.insert_one({"_id": ObjectId(), "name": "something else"})
    with pytest.raises(WrongLayout, match="unknown layout"):
        facts_store.insert_into_empty([agent_fact("x", 0)])


def test_an_edit_in_place_keeps_id_timestamp_and_metadata(facts_store: FactsStore) -> None:
    doc = {**agent_fact("The TTS port is 9000.", 0), "metadata": {"kept": True}}
    facts_store.collection.insert_one(doc)
    new_vector = unit(7)
    assert facts_store.set_content_if_unchanged(
        str(doc["_id"]), "The TTS port is 9000.", "The TTS port is 9100.", new_vector
    )
    after = facts_store.collection.find_one({"_id": doc["_id"]})
    assert after == {**doc, "content": "The TTS port is 9100.", "content_embedding": new_vector}


def test_an_edit_on_a_stale_copy_or_a_gone_fact_writes_nothing(
    facts_store: FactsStore,
) -> None:
    doc = agent_fact("The TTS port is 9000.", 0)
    facts_store.collection.insert_one(doc)
    assert not facts_store.set_content_if_unchanged(str(doc["_id"]), "stale", "x", unit(1))
    gone = str(ObjectId())
    assert not facts_store.set_content_if_unchanged(gone, "The TTS port is 9000.", "x", unit(1))
    assert facts_store.count() == 1  # no upsert
    assert facts_store.collection.find_one({"_id": doc["_id"]}) == doc


@pytest.mark.parametrize("vector", [None, [1] * 384, [0.1] * 1024, [float("nan")] * 384])
def test_an_edit_refuses_a_vector_the_agent_cannot_use(
    facts_store: FactsStore, vector: Any
) -> None:
    doc = agent_fact("x", 0)
    facts_store.collection.insert_one(doc)
    with pytest.raises(InvalidFact):
        facts_store.set_content_if_unchanged(str(doc["_id"]), "x", "y", vector)
    assert facts_store.collection.find_one({"_id": doc["_id"]}) == doc


def test_an_edit_is_refused_on_a_qq_notes_collection(stores: dict[str, Any]) -> None:
    add_note("n1", "A qq note.")
    store = notes_store()
    facts = FactsStore(store.client, *store.location)
    with pytest.raises(WrongLayout):
        facts.set_content_if_unchanged("n1", "A qq note.", "x", unit(0))
