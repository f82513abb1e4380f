from datetime import datetime

import pytest

from memory_app.notes.lib import InvalidNote
from memory_app.notes.stores import notes_store
from tests.helpers import add_note
from tests.memory_app.notes.agent_docs import agent_doc

pytestmark = pytest.mark.usefixtures("mongo")


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


def _plant(store, note_id, content, section="Key Topics", **fields):
    """A document exactly as the agent writes it."""
    from memory_app.notes.lib.mongo_store import utcnow_naive

    now = utcnow_naive()
    doc = {
        "note_id": note_id,
        "content": content,
        "embedding": [],
        "section": section,
        "metadata": {},
        "importance": 0.5,
        "decay_rate": 0.01,
        "access_count": 0,
        "created_at": now,
        "updated_at": now,
        "last_accessed": None,
        **fields,
    }
    store.collection.insert_one(doc)
    return doc


def test_recent_notes_come_newest_first_and_filter_by_section():
    from datetime import timedelta

    from memory_app.notes.lib.mongo_store import utcnow_naive

    store = notes_store()
    now = utcnow_naive()
    _plant(store, "note_000000000001", "old", updated_at=now - timedelta(days=3))
    _plant(store, "note_000000000002", "new", updated_at=now)
    _plant(store, "note_000000000003", "fact", section="Important Facts")
    assert [n["note_id"] for n in store.get_recent_notes(limit=2, section="Key Topics")] == [
        "note_000000000002",
        "note_000000000001",
    ]


def test_stale_notes_count_never_accessed_ones_from_creation():
    from datetime import timedelta

    from memory_app.notes.lib.mongo_store import utcnow_naive

    store = notes_store()
    now = utcnow_naive()
    _plant(store, "note_000000000001", "never read", created_at=now - timedelta(days=40))
    _plant(
        store,
        "note_000000000002",
        "read lately",
        created_at=now - timedelta(days=40),
        last_accessed=now - timedelta(days=2),
    )
    _plant(store, "note_000000000003", "read long ago", last_accessed=now - timedelta(days=60))
    stale = {n["note_id"] for n in store.get_stale_notes(days_threshold=30)}
    assert stale == {"note_000000000001", "note_000000000003"}


def test_increment_access_and_importance_updates_are_targeted():
    store = notes_store()
    _plant(store, "note_000000000001", "x", source_history=[{"source_type": "unknown"}])
    assert store.increment_access("note_000000000001")
    assert store.update_importance("note_000000000001", 0.9)
    assert (
        store.bulk_update_importance(
            [
                {"note_id": "note_000000000001", "importance": 0.7},
                {"note_id": "note_missing0000", "importance": 0.1},
            ]
        )
        == 1
    )
    doc = store.get_full_note("note_000000000001")
    assert doc["access_count"] == 1 and doc["last_accessed"] is not None
    assert doc["importance"] == 0.7
    assert doc["source_history"] == [{"source_type": "unknown"}]
    assert not store.increment_access("note_missing0000")


def test_append_source_history_pushes_and_caps_the_boost_at_one():
    store = notes_store()
    _plant(store, "note_000000000001", "x", importance=0.9)
    source = {"source_type": "conversation", "session_id": "s1", "source_id": "session:s1"}
    assert store.append_source_history("note_000000000001", source, boost_importance=0.3)
    doc = store.get_full_note("note_000000000001")
    assert doc["source_history"] == [source]
    assert doc["importance"] == 1.0


def test_find_by_source_file_looks_at_source_and_history():
    store = notes_store()
    _plant(store, "note_000000000001", "a", source={"source_type": "file", "file_path": "/x.py"})
    _plant(store, "note_000000000002", "b", source_history=[{"file_path": "/x.py"}])
    _plant(store, "note_000000000003", "c", source={"file_path": "/y.py"})
    assert {n["note_id"] for n in store.find_by_source_file("/x.py")} == {
        "note_000000000001",
        "note_000000000002",
    }


def test_histogram_is_counted_by_the_database():
    store = notes_store()
    for i, value in enumerate([0.0, 0.05, 0.15, 0.5, 0.99, 1.0]):
        _plant(store, f"note_00000000000{i}", "x", importance=value)
    assert store.importance_histogram(bins=10) == [2, 1, 0, 0, 0, 1, 0, 0, 0, 2]


def test_stats_report_the_stored_dimensions():
    store = notes_store()
    _plant(store, "note_000000000001", "a", embedding=[0.1] * 384)
    _plant(store, "note_000000000002", "b", embedding=[0.1] * 1024)
    _plant(store, "note_000000000003", "c")
    stats = store.collection_stats()
    assert stats["dimensions"] == {384: 1, 1024: 1}
    assert stats["without_embedding"] == 1


@pytest.mark.parametrize("direction", ["asc", "desc"])
def test_the_list_pages_over_stored_nan_and_infinite_importance(direction):
    """The agent can store NaN or infinity as a double: the list still pages over every
    note once, and ends, with the cursors it gives out."""
    store = notes_store()
    odd = {"note_0000000000a1": float("nan"), "note_0000000000a2": float("inf")}
    for i in range(6):
        add_note(f"note_0000000000a{i}", f"note {i}")
    for note_id, value in odd.items():
        store.collection.update_one({"note_id": note_id}, {"$set": {"importance": value}})
    seen: list[str] = []
    cursor = None
    for _ in range(10):
        page = store.list_notes(sort="importance", direction=direction, cursor=cursor, limit=2)
        seen += [n.note_id for n in page.items]
        cursor = page.next_cursor
        if cursor is None:
            break
    assert sorted(seen) == [f"note_0000000000a{i}" for i in range(6)]


def test_inserting_agent_documents_counts_only_the_notes_it_added():
    store = notes_store()
    first = [agent_doc(f"note_00000000000{i}", f"fact {i}", [0.1, 0.2]) for i in range(3)]
    assert store.insert_agent_documents(first) == 3
    again = [*first, agent_doc("note_000000000009", "a new fact", [0.3, 0.4])]
    assert store.insert_agent_documents(again) == 1
    assert store.insert_agent_documents(again) == 0
    assert store.count() == 4
    assert store.get_full_note("note_000000000000")["content"] == "fact 0"
