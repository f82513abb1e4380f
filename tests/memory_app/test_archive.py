import json

import pytest

from memory_app.memory import ArchiveManager, InvalidNote
from memory_app.memory.archive import local_naive_iso


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
