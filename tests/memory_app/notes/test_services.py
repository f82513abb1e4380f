"""Audited curation services, each one undone."""

import json
from datetime import timedelta

import pytest

from memory_app.notes.lib import NoteNotFound, RestoreConflict
from memory_app.notes.lib.errors import StaleWrite
from memory_app.notes.lib.mongo_store import utcnow_naive
from memory_app.notes.services import (
    core_item_remove,
    core_promote,
    note_archive,
    note_edit,
    note_restore,
    pair_merge,
    working_item_edit,
    working_item_remove,
)
from memory_app.notes.stores import archive_manager, core_notes, notes_store, working_notes
from qqweb.audit.errors import UndoRefused
from qqweb.audit.models import AuditEvent
from qqweb.audit.services import audit_undo
from qqweb.lib.actors import Actor
from qqweb.lib.embeddings import HashingEmbedder

EMB = HashingEmbedder(384)
CORA = Actor("user", "cora-curator", role="curator")
ADA = Actor("user", "ada-admin", role="admin")


def plant(note_id, content, importance=0.5, **fields):
    now = utcnow_naive()
    doc = {
        "note_id": note_id,
        "content": content,
        "embedding": [float(x) for x in EMB.embed([content])[0]],
        "section": "Key Topics",
        "metadata": {},
        "importance": importance,
        "decay_rate": 0.01,
        "access_count": 1,
        "created_at": now - timedelta(days=3),
        "updated_at": now,
        "last_accessed": None,
        **fields,
    }
    notes_store().collection.insert_one(dict(doc))
    return notes_store().get_full_note(note_id)


def snapshot():
    docs = sorted(
        notes_store().collection.find({}, {"_id": 0, "updated_at": 0}), key=lambda d: d["note_id"]
    )
    for d in docs:
        d.pop("qqweb_merged_ids", None)
        d.pop("qqweb_keep_until", None)  # a note brought back by an undo: test_restore_grace
        d.pop("qqweb_written_at", None)  # ... and marked put back (the incremental dedup scan)
    return docs


def archive_text():
    path = archive_manager().archive_file
    return path.read_text() if path.exists() else ""


pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("mongo", "memory_dir")]


def test_edit_changes_the_note_re_embeds_and_is_audited():
    doc = plant("note_0000000000a1", "Lumen uses MongoDB")
    edited = note_edit(
        actor=CORA,
        note_id="note_0000000000a1",
        expected_updated_at=doc["updated_at"],
        content="Lumen uses Postgres",
        importance=0.8,
    )
    assert edited.content == "Lumen uses Postgres" and edited.importance == 0.8
    assert edited.embedding == [float(x) for x in EMB.embed(["Lumen uses Postgres"])[0]]
    event = AuditEvent.objects.get()
    assert (event.actor, event.action, event.target_id, event.status) == (
        "user:cora-curator",
        "note.edit",
        "note_0000000000a1",
        "done",
    )
    assert event.before["content"] == "Lumen uses MongoDB"
    assert event.after["content"] == "Lumen uses Postgres"


def test_an_edit_on_a_stale_copy_is_refused_with_the_current_version():
    doc = plant("note_0000000000a1", "Lumen uses MongoDB")
    notes_store().update_importance("note_0000000000a1", 0.9)  # the agent, meanwhile
    with pytest.raises(StaleWrite) as refused:
        note_edit(
            actor=CORA,
            note_id="note_0000000000a1",
            expected_updated_at=doc["updated_at"],
            content="Lumen uses Postgres",
        )
    assert refused.value.current["importance"] == 0.9
    assert notes_store().get_full_note("note_0000000000a1")["content"] == "Lumen uses MongoDB"


def test_an_edit_keeps_an_access_count_the_agent_bumped():
    doc = plant("note_0000000000a1", "Lumen uses MongoDB")
    notes_store().collection.update_one(
        {"note_id": "note_0000000000a1"}, {"$inc": {"access_count": 2}}
    )  # no updated_at change
    note_edit(
        actor=CORA,
        note_id="note_0000000000a1",
        expected_updated_at=doc["updated_at"],
        section="Important Facts",
    )
    assert notes_store().get_full_note("note_0000000000a1")["access_count"] == 3


def test_undo_edit_restores_the_note():
    doc = plant("note_0000000000a1", "Lumen uses MongoDB")
    before = snapshot()
    note_edit(
        actor=CORA,
        note_id="note_0000000000a1",
        expected_updated_at=doc["updated_at"],
        content="Lumen uses Postgres",
        section="Important Facts",
        importance=0.9,
    )
    undo = audit_undo(actor=CORA, event_id=AuditEvent.objects.get().pk)
    assert snapshot() == before
    assert undo.action == "undo.note.edit" and undo.undo_of.action == "note.edit"
    with pytest.raises(UndoRefused, match="undone already"):
        audit_undo(actor=CORA, event_id=undo.undo_of.pk)


def test_undo_is_refused_when_the_note_changed_since():
    doc = plant("note_0000000000a1", "Lumen uses MongoDB")
    note_edit(
        actor=CORA,
        note_id="note_0000000000a1",
        expected_updated_at=doc["updated_at"],
        importance=0.9,
    )
    notes_store().update_importance("note_0000000000a1", 0.3)
    with pytest.raises(UndoRefused, match="changed after this edit"):
        audit_undo(actor=CORA, event_id=AuditEvent.objects.get(action="note.edit").pk)
    assert notes_store().get_full_note("note_0000000000a1")["importance"] == 0.3


def test_archive_and_undo_give_back_the_exact_note_and_archive_file():
    plant("note_0000000000a1", "Lumen uses MongoDB", source={"source_type": "file"})
    before, file_before = snapshot(), archive_text()
    line = note_archive(actor=CORA, note_id="note_0000000000a1")
    assert line.reason == "manual"
    assert notes_store().get_full_note("note_0000000000a1") is None
    assert json.loads(archive_text())["note_id"] == "note_0000000000a1"
    audit_undo(actor=CORA, event_id=AuditEvent.objects.get().pk)
    assert snapshot() == before
    assert archive_text() == file_before


def test_restore_and_undo():
    plant("note_0000000000a1", "Lumen uses MongoDB")
    note_archive(actor=CORA, note_id="note_0000000000a1")
    file_archived = archive_text()
    restored = note_restore(actor=ADA, note_id="note_0000000000a1")
    assert restored.metadata["restored_from_archive"] is True
    audit_undo(actor=ADA, event_id=AuditEvent.objects.get(action="note.restore").pk)
    assert notes_store().get_full_note("note_0000000000a1") is None
    assert archive_text() == file_archived


def test_restore_conflict_names_a_new_id():
    plant("note_0000000000a1", "Lumen uses MongoDB")
    note_archive(actor=CORA, note_id="note_0000000000a1")
    plant("note_0000000000a1", "Something new")
    with pytest.raises(RestoreConflict) as conflict:
        note_restore(actor=CORA, note_id="note_0000000000a1")
    assert AuditEvent.objects.get(action="note.restore").status == "failed"
    note_restore(actor=CORA, note_id="note_0000000000a1", new_id=conflict.value.suggested_id)
    assert notes_store().get_full_note(conflict.value.suggested_id) is not None


def test_merge_and_undo_give_back_both_notes_and_the_archive_file():
    plant(
        "note_0000000000a1",
        "Lumen uses MongoDB for vector search",
        0.7,
        source={"source_id": "s1"},
        source_history=[{"source_id": "s1"}],
    )
    plant(
        "note_0000000000a2",
        "Lumen uses MongoDB for vector search now",
        0.4,
        source={"source_id": "s2"},
        source_history=[{"source_id": "s2"}],
    )
    before, file_before = snapshot(), archive_text()
    merged = pair_merge(actor=CORA, note_a_id="note_0000000000a1", note_b_id="note_0000000000a2")
    assert merged.note_id == "note_0000000000a1" and merged.access_count == 2
    assert merged.source_history == [{"source_id": "s1"}, {"source_id": "s2"}]
    notes_store().increment_access("note_0000000000a1")  # the agent reads it meanwhile
    audit_undo(actor=CORA, event_id=AuditEvent.objects.get(action="pair.merge").pk)
    after = snapshot()
    assert after[0].pop("access_count") == 2 and after[0].pop("last_accessed") is not None
    expected = before
    expected[0].pop("access_count"), expected[0].pop("last_accessed")
    assert after == expected
    assert archive_text() == file_before


def test_merge_with_a_curators_text_and_chosen_primary():
    plant("note_0000000000a1", "Lumen uses MongoDB", 0.7)
    plant("note_0000000000a2", "Lumen relies on MongoDB", 0.4)
    merged = pair_merge(
        actor=CORA,
        note_a_id="note_0000000000a1",
        note_b_id="note_0000000000a2",
        primary_id="note_0000000000a2",
        content="Lumen stores notes in MongoDB",
    )
    assert merged.note_id == "note_0000000000a2"
    assert merged.content == "Lumen stores notes in MongoDB"
    assert merged.embedding == [float(x) for x in EMB.embed([merged.content])[0]]


def test_merge_of_a_missing_note_is_not_found_and_writes_nothing():
    plant("note_0000000000a1", "Lumen uses MongoDB")
    with pytest.raises(NoteNotFound):
        pair_merge(actor=CORA, note_a_id="note_0000000000a1", note_b_id="note_0000000000zz")
    assert AuditEvent.objects.count() == 0


def test_promote_suggests_the_category_and_undo_removes_it():
    plant("note_0000000000a1", "My name is Dana Okafor", 0.9)
    item = core_promote(actor=CORA, note_id="note_0000000000a1")
    assert item.category == "Identity"
    assert core_notes().get_all_items()["Identity"] == ["My name is Dana Okafor"]
    audit_undo(actor=CORA, event_id=AuditEvent.objects.get().pk)
    assert core_notes().get_all_items()["Identity"] == []


def test_core_and_working_items_removed_and_edited_come_back_on_undo():
    core_notes().add_core("I live in Lisbon", "Identity")
    working_notes().add_note("Ongoing Threads", "Waiting on Priya")
    working_notes().add_note("Key Topics", "Graph RAG")
    core_item_remove(actor=CORA, category="Identity", content="i live in lisbon")
    working_item_remove(actor=CORA, section="Ongoing Threads", content="Waiting on Priya")
    working_item_edit(
        actor=CORA, section="Key Topics", content="Graph RAG", new_content="GraphRAG over Neo4j"
    )
    assert core_notes().get_all_items()["Identity"] == []
    assert working_notes().get_all_items()["Key Topics"] == ["GraphRAG over Neo4j"]
    for event in AuditEvent.objects.order_by("-id"):
        audit_undo(actor=CORA, event_id=event.pk)
    assert core_notes().get_all_items()["Identity"] == ["I live in Lisbon"]
    assert working_notes().get_all_items()["Ongoing Threads"] == ["Waiting on Priya"]
    assert working_notes().get_all_items()["Key Topics"] == ["Graph RAG"]


def test_an_archive_retried_after_a_crash_writes_one_line():
    plant("note_0000000000a1", "Lumen uses MongoDB")
    doc = notes_store().get_full_note("note_0000000000a1")
    from memory_app.notes.lib.archive import archive_line_for

    archive_manager().append_entries([archive_line_for(doc, "manual")])  # then the crash
    note_archive(actor=CORA, note_id="note_0000000000a1")  # the retry
    assert len(archive_text().splitlines()) == 1
    assert notes_store().get_full_note("note_0000000000a1") is None
    audit_undo(actor=CORA, event_id=AuditEvent.objects.get().pk)
    assert archive_text() == "" and notes_store().get_full_note("note_0000000000a1")
