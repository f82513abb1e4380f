"""Importing into stores that already hold some of the file: the preview says what they
hold, nothing is written until the curator accepts, and then nothing they hold is
overwritten and nothing is doubled."""

from __future__ import annotations

import json

import pytest

from graph_app.stores import graph_store
from memory_app.notes.lib import CoreNotesManager
from memory_app.notes.stores import notes_store
from qqweb.backup.exporting import backup_export
from qqweb.backup.importing import ImportConflicts, backup_import, backup_preview
from qqweb.backup.ndjson import ExportFormatError
from qqweb.lib.clients import neo4j_driver
from tests.helpers import agent_archive_line, plant_note

GRAPH = """
CREATE (a:Person {name: 'Ada', first_seen: datetime('2024-01-01T00:00:00.000000001Z')})
CREATE (b:Project {name: 'qqweb'})
CREATE (s:Source {source_id: 'session:1'})
CREATE (a)-[:WORKS_ON {confidence: 0.9}]->(b)
CREATE (a)-[:EXTRACTED_FROM]->(s)
"""


@pytest.fixture
def small_memory(stores):
    for i in range(5):
        plant_note(f"note_00000000000{i}")
    neo4j_driver().execute_query(GRAPH)
    CoreNotesManager(memory_dir=stores["memory_dir"]).add_core("I am qq", "Identity")
    with open(stores["memory_dir"] / "archive.jsonl", "w") as handle:
        for i in range(3):
            handle.write(json.dumps(agent_archive_line(f"note_arch{i:07d}", 10)) + "\n")
    return stores


@pytest.fixture
def exported(small_memory, tmp_path):
    path = tmp_path / "export.ndjson"
    backup_export(destination=path)
    return path


def graph_counts():
    counts = graph_store().export_counts()
    return counts.nodes, counts.relationships


def test_an_import_into_stores_that_hold_some_of_it_is_refused_with_the_preview(exported):
    notes_store().collection.delete_one({"note_id": "note_000000000000"})

    with pytest.raises(ImportConflicts) as refused:
        backup_import(source=exported)

    preview = refused.value.preview
    assert preview.notes_present == 4
    assert preview.nodes_present == 3
    assert {f["name"]: f["outcome"] for f in preview.files} == {
        "archive.jsonl": "same",
        "core.md": "same",
    }
    assert "4 notes" in str(refused.value)
    assert notes_store().get_note("note_000000000000") is None  # nothing written


def test_accepting_the_conflicts_adds_what_is_missing_and_keeps_what_is_there(
    exported, small_memory
):
    store = notes_store()
    store.collection.delete_one({"note_id": "note_000000000000"})
    store.collection.update_one({"note_id": "note_000000000001"}, {"$set": {"content": "mine"}})
    core = small_memory["memory_dir"] / "core.md"
    CoreNotesManager(memory_dir=small_memory["memory_dir"]).add_core("I moved", "Identity")
    core_now = core.read_bytes()
    with open(small_memory["memory_dir"] / "archive.jsonl", "w") as handle:
        handle.write(json.dumps(agent_archive_line("note_other00000", 1)) + "\n")
    nodes_before = graph_counts()

    summary = backup_import(source=exported, accept_conflicts=True)

    assert summary.inserted["note"] == 1
    assert store.get_note("note_000000000000") is not None
    assert store.get_note("note_000000000001")["content"] == "mine"
    assert core.read_bytes() == core_now
    assert {f["name"]: f["outcome"] for f in summary.files}["core.md"] == "kept"
    lines = (small_memory["memory_dir"] / "archive.jsonl").read_text().splitlines()
    assert len(lines) == 4
    assert graph_counts() == nodes_before  # the same nodes and relationships, not doubled


def test_an_import_run_again_doubles_nothing(exported, small_memory):
    store = notes_store()
    store.collection.delete_many({})
    graph_store().delete_everything()
    (small_memory["memory_dir"] / "archive.jsonl").unlink()
    backup_import(source=exported)
    counts = store.collection.count_documents({}), graph_counts()

    backup_import(source=exported, accept_conflicts=True)

    assert (store.collection.count_documents({}), graph_counts()) == counts == (5, (3, 2))
    assert len((small_memory["memory_dir"] / "archive.jsonl").read_text().splitlines()) == 3


def test_a_file_cut_short_is_refused_before_anything_is_written(exported, small_memory):
    lines = exported.read_text().splitlines(keepends=True)
    exported.write_text("".join(lines[:-1]))
    notes_store().collection.delete_many({})

    with pytest.raises(ExportFormatError, match="end record"):
        backup_import(source=exported)

    assert notes_store().collection.count_documents({}) == 0


def test_a_file_of_another_version_is_refused_naming_the_version(exported):
    lines = exported.read_text().splitlines(keepends=True)
    header = json.loads(lines[0])
    header["version"] = 2
    exported.write_text(json.dumps(header) + "\n" + "".join(lines[1:]))

    with pytest.raises(ExportFormatError, match="version 2"):
        backup_preview(source=exported)


def test_a_file_whose_lines_do_not_match_its_checksum_is_refused(exported, small_memory):
    text = exported.read_text().replace("I am qq", "I am someone else")
    exported.write_text(text)
    (small_memory["memory_dir"] / "core.md").unlink()

    with pytest.raises(ExportFormatError, match="SHA-256"):
        backup_import(source=exported, accept_conflicts=True)

    assert not (small_memory["memory_dir"] / "core.md").exists()


def test_a_file_with_a_record_missing_is_refused(exported):
    lines = exported.read_text().splitlines(keepends=True)
    exported.write_text("".join(line for line in lines if '"note_000000000003"' not in line))

    with pytest.raises(ExportFormatError, match="counts 5 note records, the file holds 4"):
        backup_preview(source=exported)


def _fact(text: str, vector: list[float], days_ago: int) -> dict:
    from datetime import UTC, datetime, timedelta

    from bson import ObjectId

    when = (datetime.now(UTC) - timedelta(days=days_ago)).replace(tzinfo=None, microsecond=0)
    return {
        "_id": ObjectId(),
        "type": "fact",
        "content": text,
        "content_embedding": vector,
        "timestamp": when,
        "metadata": {},
    }


def _unit(*weights: float) -> list[float]:
    vector = [0.0] * 384
    for i, w in enumerate(weights):
        vector[i] = w
    norm = sum(w * w for w in weights) ** 0.5
    return [x / norm for x in vector]


def test_facts_the_agent_would_not_save_are_left_out_of_an_import_and_listed(
    small_memory, facts_store, tmp_path
):
    """Into a facts store that holds facts, each imported fact goes through the agent's
    add test: one at >= 0.95 to a fact there would be deleted (or delete) at its next
    start, so it is left out and named, never written."""
    port = _fact("The TTS server listens on port 8000.", _unit(1.0), days_ago=30)
    voice = _fact("Lily's voice is Aria.", _unit(0.0, 1.0), days_ago=30)
    facts_store.collection.insert_many([dict(port), dict(voice)])
    path = tmp_path / "export.ndjson"
    backup_export(destination=path)
    facts_store.collection.delete_many({})
    correction = _fact("The TTS server listens on port 8001.", _unit(1.0, 0.05), days_ago=1)
    facts_store.collection.insert_one(dict(correction))

    summary = backup_import(source=path, accept_conflicts=True)

    stored = {d["_id"]: d["content"] for d in facts_store.collection.find({})}
    assert stored == {correction["_id"]: correction["content"], voice["_id"]: voice["content"]}
    assert summary.inserted["fact"] == 1
    assert [(s["fact_id"], s["like_id"]) for s in summary.facts_skipped] == [
        (str(port["_id"]), str(correction["_id"]))
    ]
    assert summary.facts_skipped[0]["score"] >= 0.95
