"""Undo needs the role its action needed: a curator cannot take back an admin's purge, a
restore or a maintenance run, from the API or the Audit page."""

import json

import pytest
from django.urls import reverse

from memory_app.notes.services import archive_purge, note_archive
from memory_app.notes.stores import archive_manager
from qqweb.audit.models import AuditEvent
from qqweb.jobs.runner import job_create
from qqweb.jobs.tasks import run_job_task
from qqweb.lib.actors import Actor
from tests.helpers import add_note
from tests.helpers import agent_archive_line as agent_line

ADA = Actor("user", "ada-admin", role="admin")
CORA = Actor("user", "cora-curator", role="curator")


@pytest.fixture
def purged(stores):
    manager = archive_manager()
    manager.append_entries([agent_line("note_0000000000a0", 150)])
    archive_purge(actor=ADA, days=90)
    return AuditEvent.objects.get(action="archive.purge")


def archive_ids():
    return [n.note_id for n in archive_manager().read().notes]


def test_a_curator_cannot_undo_an_admins_purge(curator_client, purged):
    response = curator_client.post(f"/api/audit/{purged.pk}/undo")
    assert response.status_code == 403
    assert response.json()["error"] == {
        "code": "forbidden",
        "message": "undoing archive.purge needs the admin role",
    }
    assert archive_ids() == []
    assert AuditEvent.objects.get(pk=purged.pk).undone_at is None


def test_an_admin_undoes_the_purge(admin_client_, purged):
    assert admin_client_.post(f"/api/audit/{purged.pk}/undo").status_code == 200
    assert archive_ids() == ["note_0000000000a0"]


def test_the_audit_page_offers_undo_only_to_who_may_undo(curator_client, admin_client_, purged):
    undo_url = reverse("memory_app:audit_undo", args=[purged.pk])
    assert undo_url not in curator_client.get(reverse("memory_app:audit")).content.decode()
    assert undo_url in admin_client_.get(reverse("memory_app:audit")).content.decode()


def test_the_audit_page_refuses_a_curators_undo_with_a_message(curator_client, purged):
    response = curator_client.post(reverse("memory_app:audit_undo", args=[purged.pk]), follow=True)
    assert "undoing archive.purge needs the admin role" in response.content.decode()
    assert archive_ids() == []


def test_a_curator_undoes_their_own_archive(curator_client, stores):
    add_note("note_0000000000b1", "Lumen uses MongoDB")
    note_archive(actor=CORA, note_id="note_0000000000b1")
    event = AuditEvent.objects.get(action="note.archive")
    assert curator_client.post(f"/api/audit/{event.pk}/undo").status_code == 200


def test_a_curator_cannot_undo_a_maintenance_run_nothing_of_it_is_undone(
    curator_client, admin_client_, stores
):
    add_note("note_0000000000c1", "an old unread note", importance=0.01)
    run = job_create(kind="archival", actor=ADA)
    run_job_task.apply(args=[run.pk])
    assert "note_0000000000c1" in archive_ids()

    response = curator_client.post(f"/api/audit/batches/{run.batch_id}/undo")
    assert response.status_code == 403
    assert "needs the admin role" in json.dumps(response.json())
    assert "note_0000000000c1" in archive_ids()
    assert admin_client_.post(f"/api/audit/batches/{run.batch_id}/undo").json()["undone"] == 1
