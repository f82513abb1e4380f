"""Notes as typed domain objects: the contract's fields typed, everything else kept."""

from datetime import datetime

from memory_app.notes.lib.domain import Note

AGENT_DOC = {
    "note_id": "note_0a1b2c3d4e5f",
    "content": "Lumen uses MongoDB",
    "embedding": [0.1, 0.2, 0.3],
    "section": "Important Facts",
    "metadata": {"restored_from_archive": True},
    "importance": 1,  # an int, as a sloppy writer may store it
    "decay_rate": 0.02,
    "access_count": 4,
    "created_at": datetime(2026, 1, 2, 3, 4, 5),
    "updated_at": datetime(2026, 2, 3, 4, 5, 6),
    "last_accessed": None,
    "source": {"source_type": "file", "file_path": "/lumen/README.md"},
    "source_history": [{"source_type": "conversation"}],
    "qqweb_base_importance": 0.9,
    "agent_v2_field": {"nested": [1, 2]},
}


def test_a_note_reads_the_contracts_fields_typed():
    note = Note.from_document(AGENT_DOC)
    assert note.note_id == "note_0a1b2c3d4e5f" and note.section == "Important Facts"
    assert note.importance == 1 and note.access_count == 4 and note.embedding_dimension == 3
    assert note.source == {"source_type": "file", "file_path": "/lumen/README.md"}


def test_fields_the_agent_adds_are_kept_and_written_back_untouched():
    note = Note.from_document(AGENT_DOC)
    assert note.extra == {"qqweb_base_importance": 0.9, "agent_v2_field": {"nested": [1, 2]}}
    assert note.to_document() == AGENT_DOC
    assert type(note.to_document()["importance"]) is int  # not turned into a float


def test_a_field_of_another_type_is_kept_as_stored_and_read_as_the_default():
    doc = {**AGENT_DOC, "importance": "high", "access_count": True}
    note = Note.from_document(doc)
    assert note.importance == 0.5 and note.access_count == 0
    assert note.to_document() == doc


def test_missing_fields_stay_missing_and_a_list_read_has_no_dimension():
    doc = {"note_id": "abcdef0123456789", "content": "legacy note"}
    note = Note.from_document(doc)
    assert note.to_document() == doc
    assert note.embedding_dimension is None  # the read left the embedding out
    assert Note.from_document({**doc, "embedding": []}).embedding_dimension == 0


def test_a_note_written_back_keeps_the_agents_field_order():
    doc = {"_id": "ours", **dict(reversed(list(AGENT_DOC.items())))}  # note_id last
    back = Note.from_document(doc).to_document()
    assert list(back) == [k for k in doc if k != "_id"]
    assert back == {k: v for k, v in doc.items() if k != "_id"}
