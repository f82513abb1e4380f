"""Documents and files planted exactly as the agent writes them are read correctly."""

import json

import pytest

from memory_app.notes.lib import ArchiveManager
from memory_app.notes.lib.listing import NoteFilter
from memory_app.notes.selectors import embedder_status
from memory_app.notes.stores import archive_manager, notes_store
from tests.memory_app.notes.agent_docs import ANALYZER, CREATED, PROVENANCE, agent_doc

pytestmark = pytest.mark.usefixtures("mongo")


def plant_agent_notes():
    notes_store().collection.insert_many(
        [
            agent_doc(
                "note_0123456789ab",
                "new style id, 384-d",
                [0.1] * 384,
                source=PROVENANCE,
                source_history=[PROVENANCE],
            ),
            agent_doc(
                "0123456789abcdef", "legacy sha256 id, 1024-d", [0.2] * 1024, source=ANALYZER
            ),
            agent_doc("fedcba9876543210", "embedding failed", []),
            agent_doc("note_ba9876543210", "no section, no source", [0.3] * 384, section=None),
        ]
    )


def test_every_agent_document_is_listed_with_naive_dates():
    plant_agent_notes()
    page = notes_store().list_notes(limit=10)
    assert {d.note_id for d in page.items} == {
        "note_0123456789ab",
        "0123456789abcdef",
        "fedcba9876543210",
        "note_ba9876543210",
    }
    for note in page.items:
        assert note.created_at == CREATED and note.created_at.tzinfo is None
    assert {d.note_id for d in notes_store().list_notes(NoteFilter(no_embedding=True)).items} == {
        "fedcba9876543210"
    }


def test_both_source_shapes_are_read_and_filterable():
    plant_agent_notes()
    files = notes_store().list_notes(NoteFilter(source_type="file")).items
    assert [d.note_id for d in files] == ["0123456789abcdef"]
    assert files[0].source is not None
    assert files[0].source["git_metadata"]["branch"] == "main"
    assert (
        notes_store().find_by_source_file("/home/dana/lumen/retrieval.py")[0]["note_id"]
        == "0123456789abcdef"
    )


def test_384_and_1024_dimensional_vectors_are_searched_apart():
    plant_agent_notes()
    hits = notes_store().search_similar([0.1] * 384, limit=10)
    assert [h["note_id"] for h in hits] == ["note_0123456789ab", "note_ba9876543210"]
    result = notes_store().vector_index.search([0.1] * 384, limit=10)
    assert result.skipped_other_dimensions == {1024: 1}


def test_the_embedder_check_says_plainly_when_dimensions_differ(settings):
    notes_store().collection.insert_one(agent_doc("note_0123456789ab", "qwen", [0.2] * 1024))
    status = embedder_status()
    assert not status.ok
    assert "384-dimensional vectors but the stored notes have 1024 dimensions" in status.message
    settings.QQ_EMBEDDING_DIMENSION = 1024
    assert embedder_status().ok


def test_an_archive_with_garbage_between_good_lines(memory_dir):
    path = memory_dir / "archive.jsonl"
    good = {
        "note_id": "note_0123456789ab",
        "content": "x",
        "section": "Key Topics",
        "importance": 0.02,
        "reason": "importance_decay_0.018",
        "archived_at": "2026-10-01T10:00:00.123456",
        "original_created_at": None,
        "access_count": 0,
        "metadata": {},
    }
    path.write_text(
        json.dumps(good)
        + '\n{"note_id": truncated\n'
        + "[1, 2]\n"
        + json.dumps({**good, "note_id": "0123456789abcdef"})
        + "\n"
    )
    read = ArchiveManager(memory_dir).read()
    assert [e["note_id"] for e in read.entries] == ["note_0123456789ab", "0123456789abcdef"]
    assert [b.number for b in read.bad_lines] == [2, 3]
    archive_manager().purge_old_archives(10_000)
    assert "truncated" in path.read_text() and "[1, 2]" in path.read_text()
