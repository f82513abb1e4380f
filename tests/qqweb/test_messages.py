"""The message after an action carries an Undo button for what that action did: one
event, or the whole batch of a bulk action."""

import re

import pytest
from django.urls import reverse

from memory_app.notes.stores import archive_manager, notes_store
from qqweb.audit.models import AuditEvent
from tests.helpers import add_note

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("mongo", "memory_dir")]


def undo_form(html):
    """(action URL, the button's data attribute) of the message's Undo form."""
    found = re.search(
        r'<form method="post" action="([^"]+)" class="inline undo-form"[^>]*>.*?'
        r'id="message-undo" (data-undo-\w+="[^"]+")',
        html,
        re.S,
    )
    assert found, "no Undo button in the message"
    return found.group(1), found.group(2)


def test_archiving_a_note_offers_undo_and_the_button_brings_it_back(curator_client):
    add_note("note_0000000000a1", "Lumen uses MongoDB")
    response = curator_client.post(
        reverse("memory_app:note_archive", args=["note_0000000000a1"]), follow=True
    )
    html = response.content.decode()
    assert "Archived note_0000000000a1." in html and "audit log" not in html
    url, data = undo_form(html)
    event = AuditEvent.objects.get(action="note.archive")
    assert url == reverse("memory_app:audit_undo", args=[event.pk])
    assert data == f'data-undo-event="{event.pk}"'
    back = curator_client.post(url, {"next": "/notes/"}, follow=True)
    assert back.redirect_chain[-1][0] == "/notes/" and "Undone." in back.content.decode()
    assert notes_store().get_full_note("note_0000000000a1") is not None
    assert archive_manager().find_line("note_0000000000a1") is None


def test_a_bulk_action_offers_undo_of_its_whole_batch(curator_client):
    for i in range(3):
        add_note(f"note_00000000000{i}", f"note {i}", importance=0.5)
    curator_client.post(
        reverse("memory_app:notes_bulk"),
        {
            "action": "set_importance",
            "importance": "0.9",
            "scope": "selected",
            "note_ids": ["note_000000000000", "note_000000000001"],
            "confirmed": "on",
        },
        HTTP_HX_REQUEST="true",
    )
    html = curator_client.get(reverse("memory_app:notes")).content.decode()
    url, data = undo_form(html)
    batch = AuditEvent.objects.filter(action="note.edit").first().batch_id
    assert data == f'data-undo-batch="{batch}"'
    page = curator_client.post(url, follow=True).content.decode()
    assert "Undid 2 changes." in page
    assert {d["importance"] for d in notes_store().collection.find({}, {"importance": 1})} == {0.5}


def test_a_refused_action_has_no_undo_button(curator_client):
    response = curator_client.post(
        reverse("memory_app:note_archive", args=["note_0000000000zz"]), follow=True
    )
    assert 'id="message-undo"' not in response.content.decode()


@pytest.mark.parametrize("back", ["nan", "logout", "https://elsewhere.example/", "//elsewhere"])
def test_an_undo_whose_form_names_no_page_of_ours_goes_back_to_the_audit_page(curator_client, back):
    add_note("note_0000000000a1", "Lumen uses MongoDB")
    curator_client.post(reverse("memory_app:note_archive", args=["note_0000000000a1"]))
    event = AuditEvent.objects.get(action="note.archive")
    undone = curator_client.post(
        reverse("memory_app:audit_undo", args=[event.pk]), {"next": back}, follow=True
    )
    assert undone.redirect_chain[-1][0] == reverse("memory_app:audit")
    assert "Undone." in undone.content.decode()
    assert notes_store().get_full_note("note_0000000000a1") is not None
