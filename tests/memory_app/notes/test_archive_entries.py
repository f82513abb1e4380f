"""The archive line, typed: ArchivedNote reads every line the agent writes and writes it back
as it was, unknown keys included."""

import json
from datetime import datetime

from memory_app.notes.lib import ArchiveManager
from memory_app.notes.lib.archive import ArchivedNote, archive_line_for

AGENT_LINE = {
    "note_id": "note_0123456789ab",
    "content": "Lumen uses MongoDB",
    "section": "Important Facts",
    "importance": 0.02,
    "reason": "importance_decay_0.018",
    "archived_at": "2026-10-01T10:00:00.123456",
    "original_created_at": "2026-01-02T03:04:05",
    "access_count": 3,
    "metadata": {"k": "v"},
    "source": {"source_type": "file", "file_path": "/a.py"},
    "source_history": [{"source_type": "file", "file_path": "/a.py"}],
    "restored": True,
    "restored_at": "2026-10-02T10:00:00",
}


def test_an_agent_line_reads_into_typed_fields_and_writes_back_the_same():
    note = ArchivedNote.from_entry(AGENT_LINE, line_number=7)
    assert (note.note_id, note.importance, note.access_count, note.restored) == (
        "note_0123456789ab",
        0.02,
        3,
        True,
    )
    assert note.source == {"source_type": "file", "file_path": "/a.py"}
    assert note.extra == {} and note.line_number == 7
    assert json.dumps(note.to_entry()) == json.dumps(AGENT_LINE)


def test_unknown_keys_and_values_of_another_type_are_kept_in_extra():
    odd = {**AGENT_LINE, "importance": 1, "agent_version": "0.9", "source": {}, "restored": False}
    note = ArchivedNote.from_entry(odd)
    assert note.importance == 1.0 and note.source is None and not note.restored
    assert note.extra == {"importance": 1, "agent_version": "0.9", "source": {}, "restored": False}
    assert note.to_entry() == odd
    assert json.dumps(note.to_entry(), sort_keys=True) == json.dumps(odd, sort_keys=True)


def test_a_rewrite_keeps_the_unknown_keys_of_the_lines_it_does_not_drop(tmp_path):
    archive = ArchiveManager(tmp_path)
    kept = {**AGENT_LINE, "agent_version": "0.9", "importance": 1}
    dropped = {**AGENT_LINE, "note_id": "note_00000000000d", "archived_at": "2020-01-01T00:00:00"}
    archive.append_entries([dropped, kept])
    line_of_kept = archive.archive_file.read_text().splitlines()[1]

    assert [n.note_id for n in archive.drop([ArchivedNote.from_entry(dropped)])] == [
        "note_00000000000d"
    ]

    assert archive.archive_file.read_text() == line_of_kept + "\n"
    assert json.loads(line_of_kept) == kept
    [note] = archive.read().notes
    assert note.extra == {"agent_version": "0.9", "importance": 1}


def test_drop_removes_one_line_for_each_note_given_the_newest_first(tmp_path):
    archive = ArchiveManager(tmp_path)
    archive.append_entries([AGENT_LINE, AGENT_LINE])
    archive.drop([ArchivedNote.from_entry(AGENT_LINE)])
    assert [n.line_number for n in archive.read().notes] == [1]


def test_the_line_for_a_document_is_the_agents():
    doc = {
        "note_id": "note_0123456789ab",
        "content": "Lumen uses MongoDB",
        "embedding": [0.1, 0.2],
        "section": "Key Topics",
        "importance": 0.4,
        "access_count": 2,
        "metadata": {},
        "created_at": datetime(2026, 1, 2, 3, 4, 5),
        "source": {"source_type": "file"},
        "source_history": [],
    }
    line = archive_line_for(doc, "manual", now=datetime(2026, 3, 1, 12, 0))
    assert line == {
        "note_id": "note_0123456789ab",
        "content": "Lumen uses MongoDB",
        "section": "Key Topics",
        "importance": 0.4,
        "reason": "manual",
        "archived_at": "2026-03-01T12:00:00",
        "original_created_at": "2026-01-02T03:04:05",
        "access_count": 2,
        "metadata": {},
        "source": {"source_type": "file"},
    }
