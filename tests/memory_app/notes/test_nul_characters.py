"""A note whose text holds a NUL character (U+0000): the agent writes what it is given, and
a curator's edit may hold one. Edited, archived and undone like any other, on SQLite and on
PostgreSQL, whose jsonb (the audit log's before and after) takes no NUL as such."""

import json

import pytest

from memory_app.notes.stores import notes_store
from qqweb.audit.models import AuditEvent
from tests.helpers import add_note

pytestmark = pytest.mark.usefixtures("mongo", "memory_dir")

WITH_NUL = "Lumen keeps \x00 raw bytes \ue000 from the agent\x00"


def test_an_edit_to_a_text_holding_a_nul_is_recorded_and_undone_exactly(curator_client):
    add_note("note_0000000000a1", "Lumen uses MongoDB for vector search")
    note = curator_client.get("/api/notes/note_0000000000a1").json()
    edited = curator_client.patch(
        "/api/notes/note_0000000000a1",
        json.dumps({"expected_updated_at": note["updated_at"], "content": WITH_NUL}),
        content_type="application/json",
    )
    assert edited.status_code == 200
    event = AuditEvent.objects.get(action="note.edit")
    assert event.status == AuditEvent.DONE and event.after["content"] == WITH_NUL
    assert curator_client.post(f"/api/audit/{event.pk}/undo").status_code == 200
    assert notes_store().get_full_note("note_0000000000a1")["content"] == (
        "Lumen uses MongoDB for vector search"
    )


def test_a_note_the_agent_wrote_with_a_nul_is_archived_and_its_undo_brings_it_back(
    curator_client,
):
    add_note("note_0000000000a2", WITH_NUL)
    assert curator_client.delete("/api/notes/note_0000000000a2").status_code == 200
    event = AuditEvent.objects.get(target_id="note_0000000000a2")
    assert event.status == AuditEvent.DONE and event.before["content"] == WITH_NUL
    assert curator_client.post(f"/api/audit/{event.pk}/undo").status_code == 200
    assert notes_store().get_full_note("note_0000000000a2")["content"] == WITH_NUL
