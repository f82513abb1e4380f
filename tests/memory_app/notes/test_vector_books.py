"""A process that restarts opens the saved snapshot's bookkeeping (each note's version,
``_id`` and segment row) memory-mapped instead of building a Python object per note, and
still sees everything the agent changed while no process ran: the changed note's old row
masked, the deleted note gone, a delete named by ``_id`` alone (the change stream's)
found; a snapshot saved in the older layout (``versions.bson``) still opens."""

import shutil

import bson
import numpy as np
import pytest

from memory_app.notes.lib.mongo_store import utcnow_naive
from memory_app.notes.lib.replica.books import Books, Versions, object_key, version_key
from memory_app.notes.lib.replica.index import VectorIndex
from memory_app.notes.lib.replica.read_model import NoteRows, stamp
from memory_app.notes.lib.replica.state import load_snapshot
from memory_app.notes.stores import notes_store
from tests.helpers import add_note, vector

pytestmark = pytest.mark.usefixtures("mongo")


def saved_then_restarted(tmp_path, agent_does, *, change_stream=False):
    """An index saved with three notes; ``agent_does`` runs while no process runs; then
    a restarted index from the snapshot, caught up."""
    add_note("note_000000000001", "Kafka streams events")
    add_note("note_000000000002", "Priya likes tea")
    add_note("note_000000000003", "Grafana dashboards for metrics")
    first = VectorIndex(notes_store(), directory=tmp_path, use_change_stream=False)
    assert first.holds("note_000000000003")
    first.close()
    agent_does(notes_store().collection)
    again = VectorIndex(notes_store(), directory=tmp_path, use_change_stream=change_stream)
    assert again.wait_caught_up(timeout=30)
    return again


def top(index, text, limit=3):
    return index.search(np.asarray(vector(text)), limit=limit).hits


def test_a_note_the_agent_rewrote_while_no_process_ran_is_found_by_its_new_text_only(tmp_path):
    def rewrite(collection):
        collection.update_one(
            {"note_id": "note_000000000001"},
            {
                "$set": {
                    "content": "Terraform plans the cloud",
                    "embedding": vector("Terraform plans the cloud"),
                    "updated_at": utcnow_naive(),
                }
            },
        )

    index = saved_then_restarted(tmp_path, rewrite)
    try:
        hits = top(index, "Terraform plans the cloud")
        assert hits[0][0] == "note_000000000001"
        assert [n for n, _ in hits].count("note_000000000001") == 1  # the old row is masked
        assert all(n != "note_000000000001" for n, s in top(index, "Kafka streams") if s > 0.9)
        assert index.dimensions() == {len(vector("x")): 3}
    finally:
        index.close()


def test_a_note_the_agent_deleted_while_no_process_ran_is_gone_after_the_catch_up(tmp_path):
    index = saved_then_restarted(tmp_path, lambda c: c.delete_one({"note_id": "note_000000000002"}))
    try:
        assert not index.holds("note_000000000002")
        assert "note_000000000002" not in [n for n, _ in top(index, "Priya likes tea")]
        assert index.read(lambda model: len(model), wait=5) == 2
    finally:
        index.close()


def test_a_delete_the_change_stream_names_by_id_alone_removes_the_note_after_a_restart(tmp_path):
    index = saved_then_restarted(tmp_path, lambda c: None, change_stream=True)
    try:
        assert index.follows_change_stream or index.wait_caught_up(timeout=5)
        notes_store().collection.delete_one({"note_id": "note_000000000003"})
        assert index.in_step(timeout=30)
        assert not index.holds("note_000000000003")
        assert index.holds("note_000000000001")
    finally:
        index.close()


def test_a_snapshot_saved_in_the_older_layout_still_opens_and_answers(tmp_path):
    add_note("note_000000000001", "Kafka streams events")
    add_note("note_000000000002", "Priya likes tea")
    first = VectorIndex(notes_store(), directory=tmp_path, use_change_stream=False)
    assert first.holds("note_000000000002")
    first.close()
    state = next(tmp_path.glob("state-*"))
    docs = {d["note_id"]: d for d in notes_store().collection.find()}
    (state / "versions.bson").write_bytes(  # what the older save wrote instead of books/
        bson.encode(
            {
                "n": list(docs),
                "o": [d["_id"] for d in docs.values()],
                "u": [list(stamp(d)) for d in docs.values()],
            }
        )
    )
    shutil.rmtree(state / "books")
    (state / "columns" / "note_order.npy").unlink()

    snapshot = load_snapshot(tmp_path, 0)
    assert snapshot is not None
    assert snapshot.row_of("note_000000000002") is not None
    assert isinstance(snapshot.read_model.rows, NoteRows)
    assert snapshot.read_model.rows["note_000000000002"] >= 0
    index = VectorIndex(notes_store(), directory=tmp_path, use_change_stream=False)
    try:
        assert index.wait_caught_up(timeout=30)
        assert top(index, "Priya likes tea")[0][0] == "note_000000000002"
    finally:
        index.close()


def test_versions_over_saved_books_count_and_find_what_changed_since():
    books = Books.build(
        ["b", "a", "c"],
        [version_key(1, (1,)), version_key(2, (2,)), version_key(3, (3,))],
        [object_key("oid-b"), object_key(None), object_key("oid-c")],
        {},
    )
    versions = Versions(books)
    assert len(versions) == 3
    assert versions.note_ids() == ["a", "b", "c"]
    assert versions.key("a") == version_key(2, (2,))
    assert versions.note_of_object("oid-c") == "c"  # found in the saved columns
    versions.forget("b")
    versions.put("d", "oid-d", (4,))
    versions.put("a", "oid-a", (5,))
    assert len(versions) == 3
    assert versions.note_ids() == ["a", "c", "d"]
    assert versions.key("b") is None
    assert versions.key("a") == version_key("oid-a", (5,))
    assert versions.note_of_object("oid-d") == "d"
    versions.forget("d")
    assert versions.note_of_object("oid-d") is None
    assert versions.note_of_object("oid-b") is None  # b was deleted since the snapshot
    ids, keys, _ = versions.columns()
    assert sorted(ids) == ["a", "c"]
    assert dict(zip(ids, keys, strict=True))["a"] == version_key("oid-a", (5,))


def test_a_reopened_read_model_changed_since_saves_every_note_once_at_its_row(tmp_path):
    from memory_app.notes.lib.replica.read_model import ReadModel

    model = ReadModel()
    for i in range(5):
        model.put({"note_id": f"note_{i}", "content": f"text {i}", "importance": 0.5})
    model.save(tmp_path / "a")
    opened = ReadModel.open(tmp_path / "a")
    opened.forget("note_1")
    opened.put({"note_id": "note_9", "content": "new", "importance": 0.5})  # takes row 1
    opened.put({"note_id": "note_1", "content": "back", "importance": 0.5})
    assert len(opened) == 6
    assert opened.rows["note_9"] == 1 and opened.rows["note_1"] != 1
    opened.save(tmp_path / "b")
    again = ReadModel.open(tmp_path / "b")
    assert dict(again.rows) == dict(opened.rows)
    assert sorted(again.rows) == ["note_0", "note_1", "note_2", "note_3", "note_4", "note_9"]
