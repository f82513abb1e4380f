"""Adding by hand: a note (page and API, the agent's shape, embedded with the configured
model) and a core.md item (page); both undone from the message's Undo button."""

import json
import re

import pytest
from django.urls import reverse

from memory_app.notes.lib.documents import validate_agent_document
from memory_app.notes.stores import core_notes, notes_store
from qqweb.audit.models import AuditEvent
from tests.helpers import add_note, vector

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("mongo", "memory_dir")]


def only_note():
    docs = list(notes_store().collection.find({}, {"_id": 0}))
    assert len(docs) == 1
    return docs[0]


def test_a_note_added_on_the_page_is_in_the_agents_shape_and_embedded(curator_client):
    response = curator_client.post(
        reverse("memory_app:note_create"),
        {"content": "Lumen moved to Postgres in March", "section": "Important Facts"},
        follow=True,
    )
    doc = only_note()
    validate_agent_document(doc)
    assert re.fullmatch(r"note_[0-9a-f]{12}", doc["note_id"])
    assert doc["embedding"] == vector("Lumen moved to Postgres in March")
    assert (doc["section"], doc["access_count"], doc["last_accessed"]) == (
        "Important Facts",
        0,
        None,
    )
    assert doc["decay_rate"] == 0.01 and doc["metadata"] == {}
    assert 0 <= doc["importance"] <= 1  # the agent's own score of the text
    assert doc["source"]["source_type"] == "unknown"
    assert doc["source"]["evidence"] == "added by hand in qqweb by user:cora-curator"
    assert response.redirect_chain[-1][0] == reverse(
        "memory_app:note_detail", args=[doc["note_id"]]
    )
    html = response.content.decode()
    assert f"Added {doc['note_id']}." in html and 'id="message-undo"' in html


def test_the_undo_in_the_message_removes_the_added_note(curator_client):
    curator_client.post(
        reverse("memory_app:note_create"), {"content": "A note", "section": "Key Topics"}
    )
    event = AuditEvent.objects.get(action="note.create")
    curator_client.post(reverse("memory_app:audit_undo", args=[event.pk]))
    assert notes_store().collection.count_documents({}) == 0


def test_an_empty_note_is_a_400_naming_the_field_and_adds_nothing(curator_client):
    response = curator_client.post(
        reverse("memory_app:note_create"), {"content": "  ", "section": "Key Topics"}
    )
    assert response.status_code == 400 and "content" in response.content.decode()
    assert notes_store().collection.count_documents({}) == 0


def test_viewers_cannot_add_notes(viewer_client):
    assert viewer_client.get(reverse("memory_app:note_create")).status_code == 403


def test_a_note_in_another_dimension_than_the_stored_ones_is_refused(curator_client):
    notes_store().upsert_note("note_0000000000a1", "old", [0.1] * 1024, "Key Topics")
    response = curator_client.post(
        reverse("memory_app:note_create"), {"content": "new", "section": "Key Topics"}
    )
    assert response.status_code == 400 and "1024" in response.content.decode()
    assert notes_store().collection.count_documents({}) == 1


def test_the_api_adds_a_note(curator_client):
    response = curator_client.post(
        "/api/notes",
        json.dumps({"content": "Dana works on Lumen", "section": None, "importance": 0.7}),
        content_type="application/json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["content"] == "Dana works on Lumen" and body["importance"] == 0.7
    assert only_note()["section"] is None
    bad = curator_client.post(
        "/api/notes",
        json.dumps({"content": "x", "section": "Nope"}),
        content_type="application/json",
    )
    assert bad.status_code == 400 and bad.json()["error"]["field"] == "section"


def test_the_note_page_shows_the_raw_document(viewer_client):
    add_note("note_0000000000a1", "Lumen uses MongoDB")
    html = viewer_client.get(reverse("memory_app:note_detail", args=["note_0000000000a1"]))
    page = html.content.decode()
    raw = re.search(r'<code id="note-raw-json">(.*?)</code>', page, re.S).group(1)
    assert "&quot;note_id&quot;: &quot;note_0000000000a1&quot;" in raw
    assert "&quot;$date&quot;" in raw and "384 values in all" in raw


def test_a_core_item_added_on_the_page_is_in_core_md_and_undone_from_the_message(curator_client):
    response = curator_client.post(
        reverse("memory_app:core_item_add"),
        {"category": "Projects", "content": "Lumen is the RAG service"},
        follow=True,
    )
    assert "Lumen is the RAG service" in core_notes().items_by_section()["Projects"]
    html = response.content.decode()
    event = AuditEvent.objects.get(action="core.add")
    assert f'data-undo-event="{event.pk}"' in html
    curator_client.post(reverse("memory_app:audit_undo", args=[event.pk]))
    assert "Lumen is the RAG service" not in core_notes().items_by_section()["Projects"]


def test_a_core_item_twice_or_in_no_category_is_refused(curator_client):
    url = reverse("memory_app:core_item_add")
    curator_client.post(url, {"category": "Projects", "content": "Lumen"})
    again = curator_client.post(url, {"category": "Projects", "content": "lumen"}, follow=True)
    assert "core.md has this item already" in again.content.decode()
    bad = curator_client.post(url, {"category": "Nope", "content": "x"}, follow=True)
    assert "Not added: category" in bad.content.decode()
