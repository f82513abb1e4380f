"""Restores stick: a note brought back by a restore or an undo is kept from the archival
pass for a grace period, shown in the restore preview and on the note page."""

import json
import re
from datetime import datetime, timedelta

import pytest
from django.urls import reverse

from memory_app.notes.lib.archive import local_naive_iso
from memory_app.notes.lib.grace import KEEP_UNTIL_FIELD, keep_until, kept_from_archival
from memory_app.notes.lib.mongo_store import utcnow_naive
from memory_app.notes.services import note_archive, note_restore, pair_merge
from memory_app.notes.stores import archive_manager, notes_store
from qqweb.audit.models import AuditEvent
from qqweb.audit.services import audit_undo, batch_undo
from qqweb.jobs.models import Run
from qqweb.jobs.runner import job_create, job_run
from qqweb.lib.actors import Actor
from tests.helpers import plant_note

ADA = Actor("user", "ada-admin", role="admin")


def archival_pass() -> Run:
    run = job_create(kind="archival", actor=ADA, dry_run=False, params={})
    job_run(run=run)
    run.refresh_from_db()
    return run


def exists(note_id: str) -> bool:
    return notes_store().get_full_note(note_id) is not None


# --- the pure part -------------------------------------------------------------------------


def test_a_grace_of_no_days_is_no_grace_and_a_bad_one_is_refused():
    now = datetime(2026, 5, 1, 12)
    assert keep_until(now, 0) is None
    assert keep_until(now, 30) == datetime(2026, 5, 31, 12)
    for bad in (-1, 3651, 1.5, True):
        with pytest.raises(ValueError):
            keep_until(now, bad)


def test_a_note_is_kept_only_while_its_grace_runs():
    now = datetime(2026, 5, 1, 12)
    assert kept_from_archival({KEEP_UNTIL_FIELD: now + timedelta(seconds=1)}, now)
    assert not kept_from_archival({KEEP_UNTIL_FIELD: now}, now)
    assert not kept_from_archival({}, now)
    assert not kept_from_archival({KEEP_UNTIL_FIELD: "2099-01-01"}, now)  # not a date


# --- against the stores --------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.usefixtures("mongo", "memory_dir")
def test_a_restored_note_is_left_by_the_next_archival_pass():
    plant_note("note_0000000000a1", importance=0.03, days_old=300)
    assert archival_pass().stats["archived"] == 1
    restored = note_restore(actor=ADA, note_id="note_0000000000a1")
    assert restored.effective_importance is None or restored.effective_importance < 0.05
    assert archival_pass().stats["archived"] == 0
    assert exists("note_0000000000a1")
    until = notes_store().get_full_note("note_0000000000a1")[KEEP_UNTIL_FIELD]
    assert timedelta(days=29) < until - utcnow_naive() <= timedelta(days=30)


@pytest.mark.django_db
@pytest.mark.usefixtures("mongo", "memory_dir")
def test_after_its_grace_period_a_restored_note_can_be_archived_again():
    plant_note("note_0000000000a1", importance=0.03, days_old=300)
    note_archive(actor=ADA, note_id="note_0000000000a1")
    note_restore(actor=ADA, note_id="note_0000000000a1", keep_days=7)
    store, now = notes_store(), utcnow_naive()
    assert store.archival_candidates(0.05, now + timedelta(days=6)) == []
    assert [i for i, _ in store.archival_candidates(0.05, now + timedelta(days=8))] == [
        "note_0000000000a1"
    ]


@pytest.mark.django_db
@pytest.mark.usefixtures("mongo", "memory_dir")
def test_a_restore_without_grace_is_archived_by_the_next_pass(settings):
    settings.QQ_RESTORE_GRACE_DAYS = 0
    plant_note("note_0000000000a1", importance=0.03, days_old=300)
    note_archive(actor=ADA, note_id="note_0000000000a1")
    note_restore(actor=ADA, note_id="note_0000000000a1")
    assert KEEP_UNTIL_FIELD not in notes_store().get_full_note("note_0000000000a1")
    assert archival_pass().stats["archived"] == 1


@pytest.mark.django_db
@pytest.mark.usefixtures("mongo", "memory_dir")
def test_a_note_brought_back_by_undoing_a_merge_is_left_by_the_next_pass():
    plant_note("note_0000000000a1", importance=0.9, days_old=10)
    plant_note("note_0000000000a2", importance=0.03, days_old=300)
    pair_merge(actor=ADA, note_a_id="note_0000000000a1", note_b_id="note_0000000000a2")
    audit_undo(actor=ADA, event_id=AuditEvent.objects.get(action="pair.merge").pk)
    assert exists("note_0000000000a2")
    assert archival_pass().stats["archived"] == 0
    assert exists("note_0000000000a2")


@pytest.mark.django_db
@pytest.mark.usefixtures("mongo", "memory_dir")
def test_notes_brought_back_by_undoing_an_archival_run_are_left_by_the_next_run():
    plant_note("note_0000000000a1", importance=0.03, days_old=300)
    plant_note("note_0000000000a2", importance=0.02, days_old=200)
    run = archival_pass()
    assert run.stats["archived"] == 2
    assert batch_undo(actor=ADA, batch_id=run.batch_id) == (2, [])
    assert archival_pass().stats["archived"] == 0
    assert exists("note_0000000000a1") and exists("note_0000000000a2")


# --- screens and API -------------------------------------------------------------------------


def archived_line(note_id, content):
    return {
        "note_id": note_id,
        "content": content,
        "section": "Key Topics",
        "importance": 0.02,
        "reason": "low_importance",
        "archived_at": local_naive_iso(datetime.now() - timedelta(days=3)),
        "original_created_at": "2025-01-02T03:04:05",
        "access_count": 0,
        "metadata": {},
    }


@pytest.fixture
def one_archived(mongo, memory_dir):
    archive_manager().append_entries([archived_line("note_0000000000a1", "Lumen used Qdrant")])


@pytest.mark.django_db
def test_the_restore_preview_says_it_would_be_archived_again_and_shows_the_grace(
    admin_client_, one_archived, settings
):
    settings.QQ_RESTORE_GRACE_DAYS = 14
    url = reverse("memory_app:archive_restore", args=["note_0000000000a1"])
    html = admin_client_.get(url).content.decode()
    assert "next archival pass archives it again" in html
    assert "Kept from archival until" in html
    assert 'name="keep_days"' in html and 'value="14"' in html
    until = (utcnow_naive() + timedelta(days=14)).strftime("%Y-%m-%d")
    assert until in html


@pytest.mark.django_db
def test_restoring_from_the_page_keeps_the_note_for_the_days_asked_and_the_note_page_says_so(
    admin_client_, one_archived
):
    url = reverse("memory_app:archive_restore", args=["note_0000000000a1"])
    response = admin_client_.post(url, {"keep_days": "3"}, follow=True)
    html = response.content.decode()
    assert 'id="note-kept-until"' in html and "kept from archival until" in html
    until = notes_store().get_full_note("note_0000000000a1")[KEEP_UNTIL_FIELD]
    assert timedelta(days=2) < until - utcnow_naive() <= timedelta(days=3)


@pytest.mark.django_db
def test_a_bad_grace_period_is_a_400_naming_it_and_restores_nothing(admin_client_, one_archived):
    url = reverse("memory_app:archive_restore", args=["note_0000000000a1"])
    response = admin_client_.post(url, {"keep_days": "soon"})
    assert response.status_code == 400
    assert "keep_days" in response.content.decode()
    assert not exists("note_0000000000a1")


@pytest.mark.django_db
def test_the_api_restores_with_the_grace_asked_for(admin_client_, one_archived):
    response = admin_client_.post(
        "/api/archive/note_0000000000a1/restore",
        json.dumps({"keep_days": 0}),
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    assert KEEP_UNTIL_FIELD not in notes_store().get_full_note("note_0000000000a1")
    response = admin_client_.post(
        "/api/archive/note_0000000000a2/restore",
        json.dumps({"keep_days": -1}),
        content_type="application/json",
    )
    assert response.status_code == 422


@pytest.mark.django_db
@pytest.mark.usefixtures("mongo", "memory_dir")
def test_a_curator_keeps_a_note_from_archival_on_its_page_and_ends_the_grace_again(
    curator_client,
):
    plant_note("note_0000000000a1", importance=0.03, days_old=300)
    url = reverse("memory_app:note_keep", args=["note_0000000000a1"])
    page = curator_client.get(reverse("memory_app:note_detail", args=["note_0000000000a1"]))
    stamp = re.search(r'name="updated_at" value="([^"]+)"', page.content.decode()).group(1)
    html = curator_client.post(url, {"keep_days": "10", "updated_at": stamp}, follow=True)
    assert "Kept from archival until" in html.content.decode()
    assert 'id="note-kept-until"' in html.content.decode()
    assert archival_pass().stats["archived"] == 0
    stale = curator_client.post(url, {"keep_days": "0", "updated_at": stamp}, follow=True)
    assert "changed" in stale.content.decode()  # a stale copy is refused
    stamp = re.search(r'name="updated_at" value="([^"]+)"', stale.content.decode()).group(1)
    curator_client.post(url, {"keep_days": "0", "updated_at": stamp})
    assert archival_pass().stats["archived"] == 1


@pytest.mark.django_db
@pytest.mark.usefixtures("mongo", "memory_dir")
def test_undoing_a_keep_puts_the_previous_grace_back(curator_client):
    plant_note("note_0000000000a1", importance=0.03, days_old=300)
    note_archive(actor=ADA, note_id="note_0000000000a1")
    note_restore(actor=ADA, note_id="note_0000000000a1", keep_days=5)
    before = notes_store().get_full_note("note_0000000000a1")
    curator_client.post(
        reverse("memory_app:note_keep", args=["note_0000000000a1"]),
        {"keep_days": "0", "updated_at": before["updated_at"].isoformat()},
    )
    assert notes_store().get_full_note("note_0000000000a1")[KEEP_UNTIL_FIELD] is None
    audit_undo(actor=ADA, event_id=AuditEvent.objects.get(action="note.keep").pk)
    after = notes_store().get_full_note("note_0000000000a1")
    assert after[KEEP_UNTIL_FIELD] == before[KEEP_UNTIL_FIELD]
