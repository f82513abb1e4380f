"""Finding and merging near-duplicates in the real MongoDB, crash-safe and idempotent."""

import json

import pytest

from memory_app.notes.lib.archive import archive_line_for
from memory_app.notes.lib.mongo.writes import MERGED_IDS_FIELD
from memory_app.notes.stores import archive_manager, deduplicator, notes_store
from qqweb.lib.embeddings import HashingEmbedder

pytestmark = pytest.mark.usefixtures("mongo", "memory_dir")

EMB = HashingEmbedder(384)


def add(note_id, text, importance=0.5, embedding=None, **fields):
    store = notes_store()
    vector = [float(x) for x in EMB.embed([text])[0]] if embedding is None else embedding
    store.upsert_note(note_id, text, vector, "Key Topics", importance=importance)
    if fields:
        store.collection.update_one({"note_id": note_id}, {"$set": fields})


@pytest.fixture
def twins():
    add(
        "note_00000000000a",
        "Lumen uses MongoDB for vector search in production",
        0.7,
        access_count=2,
        source={"source_type": "conversation", "source_id": "session:1"},
    )
    add(
        "note_00000000000b",
        "Lumen uses MongoDB for vector search in production today",
        0.4,
        access_count=3,
        source={"source_type": "conversation", "source_id": "session:2"},
    )
    add("note_00000000000c", "Priya reviews pull requests on Fridays", 0.5)


def test_find_similar_returns_the_pair_above_the_threshold(twins):
    pairs = deduplicator().find_similar(threshold=0.85)
    assert [set(p.ids) for p in pairs] == [{"note_00000000000a", "note_00000000000b"}]
    assert pairs[0].similarity > 0.85
    assert pairs[0].note_a.embedding_dimension is None  # read without its vector


def test_vectors_of_other_dimensions_are_never_paired():
    add("note_00000000000a", "x", embedding=[1.0, 0.0, 0.0])
    add("note_00000000000b", "y", embedding=[1.0, 0.0, 0.0, 0.0])
    add("note_00000000000c", "z", embedding=[1.0, 0.0, 0.0])
    pairs = deduplicator().find_similar(threshold=0.99)
    assert [set(p.ids) for p in pairs] == [{"note_00000000000a", "note_00000000000c"}]


def test_exact_duplicates_ignore_case_and_spacing():
    assert deduplicator().find_exact_duplicates(["A  b", "c", "a b"]) == [("A  b", "a b")]


def test_merge_writes_the_simple_merge_and_archives_the_secondary(twins, memory_dir):
    dedup = deduplicator()
    pair = dedup.find_similar()[0]
    plan = dedup.plan(pair.note_a, pair.note_b, pair.similarity)
    assert dedup.apply_merge(plan, archive_manager())
    store = notes_store()
    primary = store.get_full_note("note_00000000000a")
    assert store.get_full_note("note_00000000000b") is None
    assert primary["importance"] == 0.75
    assert primary["access_count"] == 5
    assert primary["source_history"][-1] == {
        "source_type": "conversation",
        "source_id": "session:2",
    }
    line = json.loads((memory_dir / "archive.jsonl").read_text().splitlines()[-1])
    assert line["note_id"] == "note_00000000000b"
    assert line["reason"].startswith("Consolidated with note_00000000000a (similarity: 0.")


def test_an_access_bumped_by_the_agent_during_a_merge_is_kept(twins):
    dedup = deduplicator()
    pair = dedup.find_similar()[0]
    plan = dedup.plan(pair.note_a, pair.note_b, pair.similarity)
    notes_store().increment_access("note_00000000000a")  # the agent, between read and write
    dedup.apply_merge(plan, archive_manager())
    assert notes_store().get_full_note("note_00000000000a")["access_count"] == 2 + 1 + 3


@pytest.mark.parametrize("crash_after", ["primary_updated", "secondary_archived"])
def test_a_merge_interrupted_after_any_step_loses_nothing_and_completes_on_retry(
    twins, memory_dir, crash_after
):
    dedup = deduplicator()
    store = notes_store()
    archive = archive_manager()
    pair = dedup.find_similar()[0]
    plan = dedup.plan(pair.note_a, pair.note_b, pair.similarity)
    secondary = store.get_full_note(plan.secondary_id)
    # Replay the merge's own steps up to the crash point.
    store.collection.update_one(
        {"note_id": plan.primary_id},
        {
            "$set": plan.set_fields,
            "$inc": {"access_count": plan.inc_access},
            "$addToSet": {MERGED_IDS_FIELD: plan.secondary_id},
            "$push": {"source_history": plan.pushed_source},
        },
    )
    if crash_after == "secondary_archived":
        archive.append_entries([archive_line_for(secondary, plan.archive_reason)])
    # Nothing is lost at the crash point: the secondary is in MongoDB.
    assert store.get_full_note(plan.secondary_id) is not None
    assert dedup.apply_merge(plan, archive)  # the retry
    primary = store.get_full_note(plan.primary_id)
    assert primary["access_count"] == 5  # not incremented twice
    assert primary["source_history"] == [plan.pushed_source]  # pushed once
    lines = [json.loads(x) for x in (memory_dir / "archive.jsonl").read_text().splitlines()]
    assert [x["note_id"] for x in lines] == [plan.secondary_id]  # archived once
    assert store.get_full_note(plan.secondary_id) is None
    assert dedup.apply_merge(plan, archive)  # and once more: still nothing twice
    assert notes_store().get_full_note(plan.primary_id)["access_count"] == 5


def test_consolidation_pass_merges_each_pair_once(twins):
    report = deduplicator().run_consolidation_pass(archive_manager())
    assert (report.pairs_found, report.consolidated, report.errors) == (1, 1, [])
    assert notes_store().count() == 2
    assert deduplicator().should_consolidate() is False
