import json

import pytest

from memory_app.notes.lib import ArchiveManager, InvalidNote
from memory_app.notes.lib.archive import local_naive_iso


def line(note_id: str, reason: str = "low_importance", **extra):
    return {
        "note_id": note_id,
        "content": f"content of {note_id}",
        "section": "Key Topics",
        "importance": 0.02,
        "reason": reason,
        "archived_at": local_naive_iso(),
        "original_created_at": None,
        "access_count": 0,
        "metadata": {},
        **extra,
    }


def test_appended_lines_are_in_the_agents_format(tmp_path):
    archive = ArchiveManager(tmp_path)
    archive.append_entries([line("note_aaaaaaaaaaaa")])
    raw = archive.archive_file.read_text().splitlines()
    assert len(raw) == 1
    entry = json.loads(raw[0])
    assert entry["note_id"] == "note_aaaaaaaaaaaa"
    assert "+" not in entry["archived_at"] and not entry["archived_at"].endswith("Z")


def test_timezone_aware_stamps_are_refused_because_the_agent_would_crash(tmp_path):
    archive = ArchiveManager(tmp_path)
    with pytest.raises(InvalidNote, match="archived_at"):
        archive.append_entries([line("note_bbbbbbbbbbbb", archived_at="2026-01-01T10:00:00Z")])
    with pytest.raises(InvalidNote, match="timezone"):
        archive.append_entries([line("note_bbbbbbbbbbbb", archived_at="2026-01-01T10:00:00+02:00")])
    assert not archive.archive_file.exists()


def test_garbage_lines_are_kept_and_reported(tmp_path):
    archive = ArchiveManager(tmp_path)
    archive.append_entries([line("note_cccccccccccc")])
    with open(archive.archive_file, "a") as f:
        f.write("{not json\n")
    archive.append_entries([line("note_dddddddddddd", reason="importance_decay_0.031")])
    read = archive.read()
    assert [e["note_id"] for e in read.entries] == ["note_cccccccccccc", "note_dddddddddddd"]
    assert [bad.number for bad in read.bad_lines] == [2]
    assert "{not json" in archive.archive_file.read_text()
    stats = archive.get_archive_stats()
    assert stats["total"] == 2
    assert stats["unreadable_lines"] == 1
    assert stats["by_reason"] == {"low_importance": 1, "importance_decay": 1}


# --- against the real MongoDB ---------------------------------------------------------------

from datetime import datetime, timedelta  # noqa: E402

from memory_app.notes.lib import NoteNotFound, RestoreConflict  # noqa: E402
from memory_app.notes.lib.mongo_store import utcnow_naive  # noqa: E402
from memory_app.notes.stores import archive_manager, notes_store  # noqa: E402

with_stores = pytest.mark.usefixtures("mongo", "memory_dir")


def plant(note_id="note_0000000000aa", **fields):
    now = utcnow_naive()
    doc = {
        "note_id": note_id,
        "content": "Lumen uses MongoDB",
        "embedding": [0.1, 0.2],
        "section": "Important Facts",
        "metadata": {},
        "importance": 0.4,
        "decay_rate": 0.01,
        "access_count": 4,
        "created_at": datetime(2026, 1, 2, 3, 4, 5),
        "updated_at": now,
        "last_accessed": None,
        "source": {"source_type": "file", "file_path": "/a.py", "source_id": "sha256:1"},
        "source_history": [{"source_type": "file", "source_id": "sha256:1"}],
        **fields,
    }
    notes_store().collection.insert_one(dict(doc))
    return doc


@with_stores
def test_archive_note_writes_the_line_before_deleting():
    plant()
    manager = archive_manager()
    assert manager.archive_note("note_0000000000aa", "low_importance")
    assert notes_store().get_full_note("note_0000000000aa") is None
    line = json.loads(manager.archive_file.read_text())
    assert line["original_created_at"] == "2026-01-02T03:04:05"
    assert line["source"]["file_path"] == "/a.py"
    assert "embedding" not in line


@with_stores
def test_an_archive_interrupted_before_the_delete_completes_without_a_second_line():
    doc = plant()
    manager = archive_manager()
    manager.archive_document(doc, "low_importance", remove_from_mongo=False)  # crash here
    assert notes_store().get_full_note("note_0000000000aa") is not None
    assert manager.archive_note("note_0000000000aa", "low_importance")
    assert len(manager.archive_file.read_text().splitlines()) == 1


@with_stores
def test_a_note_the_agent_changed_meanwhile_is_not_deleted():
    doc = plant()
    notes_store().update_importance("note_0000000000aa", 0.9)  # the agent writes
    assert not archive_manager().archive_document(doc, "low_importance")
    assert notes_store().get_full_note("note_0000000000aa")["importance"] == 0.9


@with_stores
def test_archive_low_importance_uses_the_decayed_value_in_the_reason():
    plant("note_0000000000aa", importance=0.01, created_at=utcnow_naive() - timedelta(days=200))
    plant("note_0000000000bb", importance=0.9, created_at=utcnow_naive())
    manager = archive_manager()
    assert manager.archive_low_importance(0.05) == 1
    line = json.loads(manager.archive_file.read_text())
    assert line["note_id"] == "note_0000000000aa"
    assert line["reason"] == "importance_decay_0.000"


@with_stores
def test_restore_re_embeds_and_brings_back_the_provenance():
    plant()
    manager = archive_manager()
    manager.archive_note("note_0000000000aa", "low_importance")
    assert manager.restore_note("note_0000000000aa")
    doc = notes_store().get_full_note("note_0000000000aa")
    assert len(doc["embedding"]) == 384  # the configured (hashing) embedder
    assert doc["source"]["file_path"] == "/a.py"
    assert doc["source_history"] == [{"source_type": "file", "source_id": "sha256:1"}]
    assert doc["importance"] == 0.5 and doc["access_count"] == 4
    assert doc["metadata"]["restored_from_archive"] is True
    assert doc["created_at"] == datetime(2026, 1, 2, 3, 4, 5)
    entry = json.loads(manager.archive_file.read_text())
    assert entry["restored"] is True
    assert datetime.fromisoformat(entry["restored_at"]).tzinfo is None


@with_stores
def test_restore_refuses_to_overwrite_an_existing_id_and_offers_a_new_one():
    plant()
    manager = archive_manager()
    manager.archive_note("note_0000000000aa", "low_importance")
    # of the configured model's dimension: a restore re-embeds only in the stored one
    plant(content="a different note the agent wrote since", embedding=[0.1] * 384)
    with pytest.raises(RestoreConflict) as conflict:
        manager.restore_note("note_0000000000aa")
    assert notes_store().get_full_note("note_0000000000aa")["content"].startswith("a different")
    manager.restore_note("note_0000000000aa", new_id=conflict.value.suggested_id)
    restored = notes_store().get_full_note(conflict.value.suggested_id)
    assert restored["content"] == "Lumen uses MongoDB"
    assert restored["metadata"]["restored_from_note_id"] == "note_0000000000aa"


@with_stores
def test_restoring_what_is_not_archived_is_not_found():
    with pytest.raises(NoteNotFound):
        archive_manager().restore_note("note_0000000000zz")


def test_search_and_purge_keep_unparseable_lines(tmp_path):
    manager = ArchiveManager(tmp_path)
    old = (datetime.now() - timedelta(days=120)).isoformat()
    manager.append_entries([line("note_0000000000a1", archived_at=old), line("note_0000000000a2")])
    with open(manager.archive_file, "a") as f:
        f.write("garbage\n")
    assert [n.note_id for n in manager.search_archive("content of")] == [
        "note_0000000000a2",
        "note_0000000000a1",
    ]
    assert manager.purge_old_archives(90, dry_run=True) == 1
    assert manager.purge_old_archives(90) == 1
    text = manager.archive_file.read_text()
    assert "note_0000000000a1" not in text and "note_0000000000a2" in text
    assert text.endswith("garbage\n")
