from datetime import datetime

import pytest

from memory_app.memory import InvalidNote
from memory_app.stores import notes_store


def test_ensure_indexes_creates_the_agents_indexes():
    store = notes_store()
    store.ensure_indexes()
    info = store.collection.index_information()
    keys = {tuple(k for k, _ in spec["key"]): spec for spec in info.values()}
    assert keys[("note_id",)].get("unique") is True
    for field in ("section", "updated_at", "importance", "last_accessed"):
        assert (field,) in keys
    for field in ("source.file_path", "source.source_type", "source.source_id"):
        assert keys[(field,)].get("sparse") is True


def test_upsert_writes_bson_dates_and_the_agents_defaults():
    store = notes_store()
    store.upsert_note("note_0123456789ab", "Lumen uses MongoDB", [0.1, 0.2], "Important Facts")
    doc = store.get_full_note("note_0123456789ab")
    assert doc is not None
    assert isinstance(doc["created_at"], datetime) and doc["created_at"].tzinfo is None
    assert doc["access_count"] == 0 and doc["last_accessed"] is None
    assert doc["importance"] == 0.5 and doc["decay_rate"] == 0.01
    assert doc["embedding"] == [0.1, 0.2]


def test_an_upsert_does_not_lose_an_access_count_bumped_by_the_agent():
    store = notes_store()
    store.upsert_note("note_0123456789ab", "first", [], "Key Topics")
    store.collection.update_one({"note_id": "note_0123456789ab"}, {"$inc": {"access_count": 3}})
    store.upsert_note("note_0123456789ab", "second", [], "Key Topics")
    doc = store.get_full_note("note_0123456789ab")
    assert doc["content"] == "second"
    assert doc["access_count"] == 3


def test_a_note_outside_the_contract_is_refused_before_anything_is_written():
    store = notes_store()
    with pytest.raises(InvalidNote, match="section"):
        store.upsert_note("note_0123456789ab", "x", [], "Misc")
    with pytest.raises(InvalidNote, match="importance"):
        store.upsert_note("note_0123456789ab", "x", [], "Key Topics", importance=1.5)
    assert store.count() == 0


def test_counts_by_section_are_grouped_in_the_database():
    store = notes_store()
    store.upsert_note("note_000000000001", "a", [], "Key Topics")
    store.upsert_note("note_000000000002", "b", [], "Key Topics")
    store.upsert_note("note_000000000003", "c", [], "File Knowledge")
    assert store.count_by_section() == {"Key Topics": 2, "File Knowledge": 1}
