"""The notes list: filters, sorts and keyset pages over the agent's documents."""

from datetime import timedelta

import pytest

from memory_app.notes.lib import InvalidQuery
from memory_app.notes.lib.listing import NoteFilter
from memory_app.notes.lib.mongo_store import utcnow_naive
from memory_app.notes.stores import notes_store

pytestmark = pytest.mark.usefixtures("mongo")

NOW = utcnow_naive()


@pytest.fixture
def store():
    store = notes_store()
    docs = []
    for i in range(25):
        docs.append(
            {
                "note_id": f"note_{i:012x}",
                "content": f"note number {i} about {'Lumen' if i % 5 == 0 else 'tidepool'}",
                "embedding": [] if i % 7 == 0 else [0.1, 0.2],
                "section": "Key Topics" if i % 2 else "Important Facts",
                "metadata": {},
                "importance": round(i / 25, 2),
                "decay_rate": 0.01,
                "access_count": i % 4,
                "created_at": NOW - timedelta(days=i * 10),
                "updated_at": NOW - timedelta(hours=i),
                "last_accessed": None if i % 3 == 0 else NOW - timedelta(days=i),
                **({"source": {"source_type": "file", "file_path": "/a.py"}} if i % 4 == 0 else {}),
            }
        )
    store.collection.insert_many(docs)
    return store


def _walk(store, **kwargs):
    ids, cursor, pages = [], None, 0
    while True:
        page = store.list_notes(cursor=cursor, **kwargs)
        ids += [d.note_id for d in page.items]
        pages += 1
        cursor = page.next_cursor
        if cursor is None:
            return ids, pages


@pytest.mark.parametrize(
    "sort", ["importance", "created", "updated", "last_accessed", "access_count"]
)
@pytest.mark.parametrize("direction", ["asc", "desc"])
def test_keyset_pages_visit_every_note_once_in_order(store, sort, direction):
    ids, pages = _walk(store, sort=sort, direction=direction, limit=4)
    assert sorted(ids) == sorted(f"note_{i:012x}" for i in range(25))
    assert pages == 7
    field = {"created": "created_at", "updated": "updated_at"}.get(sort, sort)
    docs = {d["note_id"]: d for d in store.collection.find()}
    keys = [(docs[i][field] is not None, docs[i][field] or 0, i) for i in ids]
    assert keys == sorted(keys, reverse=direction == "desc")


def test_filters_combine(store):
    flt = NoteFilter(section="Important Facts", min_importance=0.3, source_type="file")
    ids, _ = _walk(store, flt=flt, limit=2)
    # even i (Important Facts), i / 25 >= 0.3, i % 4 == 0 (file source); newest update first
    assert ids == [f"note_{i:012x}" for i in (8, 12, 16, 20, 24)]


def test_never_accessed_stale_no_embedding_and_text(store):
    assert {
        d.note_id for d in store.list_notes(NoteFilter(never_accessed=True), limit=50).items
    } == {f"note_{i:012x}" for i in range(25) if i % 3 == 0}
    assert {d.note_id for d in store.list_notes(NoteFilter(no_embedding=True), limit=50).items} == {
        f"note_{i:012x}" for i in range(25) if i % 7 == 0
    }
    assert {d.note_id for d in store.list_notes(NoteFilter(text="LUMEN"), limit=50).items} == {
        f"note_{i:012x}" for i in range(25) if i % 5 == 0
    }
    stale = {d.note_id for d in store.list_notes(NoteFilter(stale_days=100), limit=50).items}
    assert "note_000000000000" not in stale  # created today, never accessed
    assert "note_000000000012" in stale  # never accessed, created 120 days ago


def test_no_source_lists_the_notes_the_overview_counts_as_no_source(store):
    """No ``source``, one without a ``source_type``, an empty one, or a source that is
    not a document: the notes the Overview's "(no source)" bar counts."""
    extra = [
        ("note_0000000000e1", {"source": {}}),
        ("note_0000000000e2", {"source": {"source_type": ""}}),
        ("note_0000000000e3", {"source": "a string"}),
        ("note_0000000000e4", {"source": {"source_type": "conversation"}}),
    ]
    for note_id, fields in extra:
        store.collection.insert_one({"note_id": note_id, "content": "x", **fields})
    got = {d.note_id for d in store.list_notes(NoteFilter(no_source=True), limit=50).items}
    assert got == {f"note_{i:012x}" for i in range(25) if i % 4} | {
        "note_0000000000e1",
        "note_0000000000e2",
        "note_0000000000e3",
    }


def test_text_search_treats_regex_characters_literally(store):
    assert store.list_notes(NoteFilter(text=".*"), limit=50).items == []


def test_effective_importance_filter_and_value(store):
    page = store.list_notes(NoteFilter(max_effective=0.05), limit=50)
    assert page.items
    assert all((d.effective_importance or 0) <= 0.05 for d in page.items)
    assert all(d.embedding_dimension is None for d in page.items)  # no vectors read


def test_bad_filters_and_cursors_are_refused_naming_the_field(store):
    with pytest.raises(InvalidQuery, match="section"):
        NoteFilter(section={"$ne": None})  # type: ignore[arg-type]
    with pytest.raises(InvalidQuery, match="min_importance"):
        NoteFilter(min_importance=2)
    with pytest.raises(InvalidQuery, match="min_access"):
        NoteFilter(min_access={"$gt": 0})  # type: ignore[arg-type]
    with pytest.raises(InvalidQuery, match="min_access"):
        NoteFilter(min_access=-1)
    with pytest.raises(InvalidQuery, match="sort"):
        store.list_notes(sort="content")
    with pytest.raises(InvalidQuery, match="cursor"):
        store.list_notes(cursor="garbage!")


def test_a_note_written_after_the_bounds_were_read_still_comes_first(store):
    store.list_notes(sort="updated", limit=5)  # reads and caches the field's bounds
    store.upsert_note("note_00000000ffff", "just written", [], "Key Topics")
    assert store.list_notes(sort="updated", limit=5).items[0].note_id == "note_00000000ffff"
    store.collection.update_one(
        {"note_id": "note_00000000ffff"}, {"$set": {"importance": -0.0, "access_count": 1000}}
    )
    assert store.list_notes(sort="access_count", limit=1).items[0].note_id == "note_00000000ffff"


def test_pages_are_complete_when_values_are_sparse_and_dense(store):
    # 25 notes a few days apart, then 30 notes within the same second
    from memory_app.notes.lib.mongo_store import utcnow_naive

    same = utcnow_naive() - timedelta(days=500)
    store.collection.insert_many(
        [
            {
                "note_id": f"note_dense{i:07d}",
                "content": "d",
                "embedding": [],
                "section": None,
                "importance": 0.5,
                "access_count": 0,
                "created_at": same,
                "updated_at": same,
                "last_accessed": None,
            }
            for i in range(30)
        ]
    )
    ids, _ = _walk(store, sort="updated", direction="desc", limit=7)
    assert len(ids) == len(set(ids)) == 55
    assert ids[-30:] == sorted(ids[-30:], reverse=True)
