"""The notes API's writes that can lose a pinned recall (qqweb/recall/lost_pins.py): each
answers 409 ``would_lose_pins`` naming the pin, and writes nothing, unless the client
sends ``confirm_lost_pins=true``; then it goes ahead and its audit event says so. A write
that loses no pin goes ahead as before."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from memory_app.notes import services
from memory_app.notes.models import ReviewPair
from memory_app.notes.stores import archive_manager, notes_store
from qqweb.audit.models import AuditEvent
from qqweb.jobs.models import Run
from qqweb.jobs.runner import job_create, job_run
from qqweb.lib.actors import Actor
from qqweb.recall.services import pin_create
from tests.helpers import agent_archive_line, plant_note

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("stores")]

ADA = Actor("user", "ada-admin", role="admin")
LUMEN = "Lumen stores its notes in MongoDB with embeddings"
TEA = "Ada prefers green tea in the morning"
PINNED = "note_lumen000001"


@pytest.fixture
def pinned(stores: Any) -> None:
    """A pinned note the agent recalls for its question, and one nobody pinned."""
    plant_note(PINNED, importance=0.6, days_old=0, content=LUMEN)
    plant_note("note_tea00000001", importance=0.9, days_old=0, content=TEA)
    pin_create(actor=ADA, query=LUMEN, item_id=PINNED)


def _post(client: Client, url: str, body: object) -> Any:
    return client.post(url, json.dumps(body), content_type="application/json")


def _refused_naming_the_pin(response: Any, item_id: str = PINNED) -> dict[str, Any]:
    assert response.status_code == 409, response.content[:500]
    error = response.json()["error"]
    assert error["code"] == "would_lose_pins" and error["confirm"] == "confirm_lost_pins"
    [pin] = error["pins"]
    assert (pin["query"], pin["item_id"], pin["source"]) == (LUMEN, item_id, "notes")
    assert f"“{LUMEN}” →" in error["message"] and "confirm_lost_pins=true" in error["message"]
    return pin


def _confirmed_in_the_audit(action: str) -> None:
    event = AuditEvent.objects.filter(action=action).latest("id")
    assert event.detail.startswith("confirmed (confirm_lost_pins) although it loses 1 pinned")
    assert f"“{LUMEN}”" in event.detail


@pytest.mark.usefixtures("pinned")
def test_deleting_a_pinned_note_is_a_409_naming_the_pin_until_confirmed(curator_client):
    refused = curator_client.delete(f"/api/notes/{PINNED}")
    pin = _refused_naming_the_pin(refused)
    assert pin["item_text"] == LUMEN and pin["why"] == "archived by this archive"
    assert notes_store().get_note(PINNED) is not None
    assert not AuditEvent.objects.filter(action="note.archive").exists()

    done = curator_client.delete(f"/api/notes/{PINNED}?confirm_lost_pins=true")
    assert done.status_code == 200 and notes_store().get_note(PINNED) is None
    _confirmed_in_the_audit("note.archive")


@pytest.mark.usefixtures("pinned")
def test_deleting_a_note_no_pin_needs_is_done_at_once_as_before(curator_client):
    assert curator_client.delete("/api/notes/note_tea00000001").status_code == 200
    assert AuditEvent.objects.get(action="note.archive").detail == ""


@pytest.mark.usefixtures("pinned")
def test_a_bulk_archive_of_a_pinned_note_is_a_409_but_a_bulk_move_is_not(curator_client):
    body = {"action": "archive", "note_ids": ["note_tea00000001", PINNED]}
    _refused_naming_the_pin(_post(curator_client, "/api/notes/bulk", body))
    assert notes_store().get_note("note_tea00000001") is not None  # nothing written
    moved = _post(
        curator_client,
        "/api/notes/bulk",
        {"action": "move_section", "note_ids": [PINNED], "section": "Key Topics"},
    )
    assert moved.status_code == 200 and moved.json()["done"] == [PINNED]

    done = _post(curator_client, "/api/notes/bulk?confirm_lost_pins=true", body)
    assert done.status_code == 200 and sorted(done.json()["done"]) == sorted(body["note_ids"])
    _confirmed_in_the_audit("note.archive")


def test_a_purge_dropping_the_line_a_pinned_note_follows_is_a_409_its_dry_run_says_so(
    admin_client_,
):
    plant_note("note_lumen000002", importance=0.7, days_old=1, content=LUMEN)
    plant_note(PINNED, importance=0.4, days_old=1, content=LUMEN + " too")
    pin_create(actor=ADA, query=LUMEN, item_id=PINNED)
    notes_store().collection.delete_one({"note_id": PINNED})
    reason = "Consolidated with note_lumen000002 (similarity: 0.95)"
    archive_manager().append_entries([agent_archive_line(PINNED, 200, reason=reason)])

    dry = _post(admin_client_, "/api/archive/purge", {"days": 90}).json()
    assert dry["would_drop"] == 1 and [p["item_id"] for p in dry["pins"]["lost"]] == [PINNED]
    _refused_naming_the_pin(
        _post(admin_client_, "/api/archive/purge", {"days": 90, "dry_run": False})
    )
    assert archive_manager().find_line(PINNED) is not None

    done = _post(
        admin_client_, "/api/archive/purge?confirm_lost_pins=true", {"days": 90, "dry_run": False}
    )
    assert done.status_code == 200 and done.json()["dropped"] == 1
    assert done.json()["pins"] is None
    _confirmed_in_the_audit("archive.purge")


@pytest.mark.usefixtures("pinned")
def test_undoing_a_restore_of_a_pinned_note_is_a_409_one_by_one_and_by_batch(admin_client_):
    services.note_archive(actor=ADA, note_id=PINNED)
    restored = services.archive_restore_many(actor=ADA, note_ids=[PINNED])
    event = AuditEvent.objects.get(action="note.restore")

    _refused_naming_the_pin(admin_client_.post(f"/api/audit/{event.pk}/undo"))
    _refused_naming_the_pin(admin_client_.post(f"/api/audit/batches/{restored.batch_id}/undo"))
    assert notes_store().get_note(PINNED) is not None  # nothing undone

    done = admin_client_.post(f"/api/audit/{event.pk}/undo?confirm_lost_pins=true")
    assert done.status_code == 200 and notes_store().get_note(PINNED) is None
    undo = AuditEvent.objects.get(undo_of=event)
    assert undo.detail.startswith("confirmed (confirm_lost_pins) although it loses 1 pinned")


@pytest.mark.usefixtures("pinned")
def test_applying_a_plan_that_loses_a_pin_is_a_409_until_confirmed(admin_client_, settings):
    settings.QQ_MIN_RETRIEVAL_IMPORTANCE = 0.2
    dry = job_create(kind="archival", actor=ADA, dry_run=True, params={"threshold": 0.7})
    job_run(run=dry)
    dry.refresh_from_db()
    assert PINNED in {item["note_id"] for item in dry.plan}

    _refused_naming_the_pin(admin_client_.post(f"/api/maintenance/runs/{dry.pk}/apply"))
    assert not Run.objects.filter(kind="archival", dry_run=False).exists()
    started = admin_client_.post(f"/api/maintenance/runs/{dry.pk}/apply?confirm_lost_pins=true")
    assert started.status_code == 202


@pytest.mark.usefixtures("pinned")
def test_a_merge_verdict_into_a_note_the_agent_does_not_recall_is_a_409(curator_client):
    pair = ReviewPair.objects.create(
        note_a=PINNED, note_b="note_tea00000001", hash_a="a", hash_b="b", similarity=0.9
    )
    body = {"verdict": "merge", "primary_id": "note_tea00000001"}
    pin = _refused_naming_the_pin(_post(curator_client, f"/api/duplicates/{pair.pk}/verdict", body))
    assert pin["why"].startswith("merged into note_tea00000001 by this merge")
    pair.refresh_from_db()
    assert pair.status == ReviewPair.PENDING and notes_store().get_note(PINNED) is not None

    done = _post(curator_client, f"/api/duplicates/{pair.pk}/verdict?confirm_lost_pins=true", body)
    assert done.status_code == 200 and notes_store().get_note(PINNED) is None
    merge = AuditEvent.objects.filter(action__startswith="pair.").latest("id")
    assert merge.detail.startswith("confirmed (confirm_lost_pins)")
