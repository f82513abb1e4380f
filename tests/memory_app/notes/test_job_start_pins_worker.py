"""A destructive job started over the API with ``"dry_run": false`` asks about the pinned
recalls as every other write does (services/jobs/pins_first.py): its run, in the real
Celery worker, plans first; a plan that would lose a pin archives nothing and waits for
review naming the pin, unless the run was started with ``confirm_lost_pins=true``."""

from __future__ import annotations

import json
import time

import pytest
from django.core.management import call_command
from django.urls import reverse

from memory_app.notes.stores import notes_store
from qqweb.audit.models import AuditEvent
from qqweb.jobs.models import Run
from qqweb.lib.actors import Actor
from qqweb.recall.services import pin_create
from tests.helpers import note_content
from tests.helpers import plant_note as plant

ADA = Actor("user", "ada-admin", role="admin")
LUMEN = "Lumen stores its notes in MongoDB with embeddings"
KEPT = "note_0000000000000000"


def wait_for(run_id: int, seconds: float = 90) -> Run:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        run = Run.objects.get(pk=run_id)
        if run.status in Run.CLOSED:
            return run
        time.sleep(0.3)
    raise AssertionError(f"run {run_id} still {run.status}")


@pytest.fixture
def worker_notes(celery_worker, settings):
    settings.QQ_MONGO_DB = celery_worker["QQ_MONGO_DB"]  # the database the worker reads
    notes_store().clear_all()
    yield
    notes_store().clear_all()


def plant_pinned(pinned_in_plan: bool) -> None:
    """20 notes an archival at threshold 0.5 keeps and one it archives, which the agent
    recalls now (0.3, above 0.2); the pin is on that note, or on a kept one."""
    for n in range(20):
        plant(f"note_{n:016d}", 0.9, 1)
    plant("note_lumen000001", 0.3, 0, content=LUMEN)
    if pinned_in_plan:
        pin_create(actor=ADA, query=LUMEN, item_id="note_lumen000001")
    else:
        pin_create(actor=ADA, query=note_content(KEPT), item_id=KEPT)


def start_archival(client, query: str = "") -> Run:
    response = client.post(
        f"/api/maintenance/archival{query}",
        json.dumps({"dry_run": False, "params": {"threshold": 0.5}}),
        content_type="application/json",
    )
    assert response.status_code == 202, response.content
    return wait_for(response.json()["id"])


@pytest.mark.django_db(transaction=True)
def test_an_archival_started_over_the_api_that_would_archive_a_pinned_note_waits_naming_it(
    worker_notes, admin_client_
):
    plant_pinned(pinned_in_plan=True)
    run = start_archival(admin_client_)
    assert run.status == "done", run.error
    assert notes_store().count() == 21  # nothing archived
    assert not AuditEvent.objects.filter(batch_id=run.batch_id).exists()
    polled = admin_client_.get(f"/api/maintenance/runs/{run.pk}").json()
    assert polled["dry_run"] is True and polled["plan_size"] == 1
    waits = polled["stats"]["waits"]
    assert waits.startswith(f"it would lose 1 pinned recall (“{LUMEN}” → “{LUMEN}” (")
    assert "note_lumen000001" in waits and waits.count("it waits for review") == 1
    plan = admin_client_.get(f"/api/maintenance/runs/{run.pk}/plan").json()
    assert [p["item_id"] for p in plan["pins"]["lost"]] == ["note_lumen000001"]
    page = admin_client_.get(reverse("memory_app:maintenance_run", args=[run.pk])).content
    assert 'id="plan-apply-button"' in page.decode() and LUMEN in page.decode()
    # applying the waiting plan is the apply route, which asks first
    applied = admin_client_.post(f"/api/maintenance/runs/{run.pk}/apply")
    assert applied.status_code == 409
    assert applied.json()["error"]["code"] == "would_lose_pins"
    assert notes_store().count() == 21


@pytest.mark.django_db(transaction=True)
def test_an_archival_started_with_confirm_lost_pins_archives_the_pinned_note_and_says_so(
    worker_notes, admin_client_
):
    plant_pinned(pinned_in_plan=True)
    run = start_archival(admin_client_, "?confirm_lost_pins=true")
    assert run.status == "done", run.error
    assert not run.dry_run and "waits" not in run.stats and run.stats["archived"] == 1
    assert notes_store().count() == 20
    [event] = AuditEvent.objects.filter(batch_id=run.batch_id)
    assert event.target_id == "note_lumen000001"
    assert event.detail.startswith(
        "confirmed (confirm_lost_pins) although it loses 1 pinned recall: "
        f"“{LUMEN}” → “{LUMEN}” (note_lumen000001)"
    )


@pytest.mark.django_db(transaction=True)
def test_an_archival_started_over_the_api_losing_no_pin_applies_as_before(
    worker_notes, admin_client_
):
    plant_pinned(pinned_in_plan=False)
    run = start_archival(admin_client_)
    assert run.status == "done", run.error
    assert not run.dry_run and "waits" not in run.stats and run.stats["archived"] == 1
    assert notes_store().count() == 20 and run.plan is None
    [event] = AuditEvent.objects.filter(batch_id=run.batch_id)
    assert event.target_id == "note_lumen000001" and event.detail == ""


@pytest.mark.django_db
def test_the_archival_command_waits_for_a_pinned_note_unless_told_to_confirm(capsys, stores):
    """The command runs the job in its own process, planning first the same way."""
    plant_pinned(pinned_in_plan=True)
    call_command("archival_pass", "--threshold", "0.5")
    out = capsys.readouterr().out
    assert "Dry run: Archival pass" in out
    assert "Nothing applied: it would lose 1 pinned recall (“Lumen stores" in out
    assert notes_store().count() == 21
    call_command("archival_pass", "--threshold", "0.5", "--confirm-lost-pins")
    assert "Done: Archival pass" in capsys.readouterr().out
    assert notes_store().count() == 20
