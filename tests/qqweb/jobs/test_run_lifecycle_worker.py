"""Runs through the real worker and Redis broker: the reaper closes what no worker will
finish (as a beat task and at worker start), a run is cancelled (queued: at once; running:
at its next batch), and undoing a run is a run of its own in the worker."""

import json
import time
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from memory_app.notes.lib.mongo_store import utcnow_naive
from memory_app.notes.stores import notes_store
from qqweb.audit.models import AuditEvent
from qqweb.audit.services import audit_begin
from qqweb.jobs.models import Run
from qqweb.jobs.runner import job_create
from qqweb.jobs.tasks import reap_runs_task, run_job_task
from qqweb.lib.actors import Actor
from tests.helpers import plant_note as plant
from tests.services import start_celery_worker, stop

ADA = Actor("user", "ada-admin")
pytestmark = pytest.mark.django_db(transaction=True)


def wait_for(run_id, until=Run.CLOSED, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        run = Run.objects.get(pk=run_id)
        if run.status in until:
            return run
        time.sleep(0.2)
    raise AssertionError(f"run {run_id} still {run.status}")


def plant_stale(count):
    now = utcnow_naive()
    notes_store().collection.insert_many(
        [
            {
                "note_id": f"note_{i:012x}",
                "content": f"stale note {i}",
                "embedding": [],
                "section": "Key Topics",
                "metadata": {},
                "importance": 0.01,
                "decay_rate": 0.01,
                "access_count": 0,
                "created_at": now - timedelta(days=300),
                "updated_at": now - timedelta(days=300),
                "last_accessed": None,
            }
            for i in range(count)
        ]
    )


@pytest.fixture
def worker_db(celery_worker, settings):
    settings.QQ_MONGO_DB = celery_worker["QQ_MONGO_DB"]  # the database the worker reads
    notes_store().clear_all()
    yield celery_worker
    notes_store().clear_all()


def _stale_run_and_event():
    run = job_create(kind="decay", actor=ADA)  # queued, its task never sent
    Run.objects.filter(pk=run.pk).update(created_at=timezone.now() - timedelta(hours=2))
    event = audit_begin(ADA, "note.archive", "note", "note_0000000000a1", {}, None)
    AuditEvent.objects.filter(pk=event.pk).update(created_at=timezone.now() - timedelta(hours=2))
    return run, event


def test_the_reaper_closes_a_run_that_never_reached_a_worker_and_a_pending_event(worker_db):
    run, event = _stale_run_and_event()
    fresh = job_create(kind="decay", actor=ADA)  # just queued: left alone
    closed = reap_runs_task.delay().get(timeout=60)
    assert closed["queued_runs"] == 1 and closed["pending_events"] == 1
    run.refresh_from_db()
    assert run.status == "failed" and "never started" in run.error
    assert "is a Celery worker running" in run.error
    event.refresh_from_db()
    assert event.status == "failed" and "left pending" in event.detail
    assert Run.objects.get(pk=fresh.pk).status == "queued"
    run_job_task.delay(run.pk).get(timeout=60)  # its task arrives after all: nothing runs
    run.refresh_from_db()
    assert run.status == "failed" and run.started_at is None


def test_a_worker_reaps_when_it_starts(worker_db, tmp_path):
    run, event = _stale_run_and_event()
    worker = start_celery_worker(worker_db, tmp_path, queue="reaper-test", name="starter")
    try:
        deadline = time.monotonic() + 30
        while Run.objects.get(pk=run.pk).status == "queued":
            assert time.monotonic() < deadline, "the starting worker did not reap"
            time.sleep(0.2)
    finally:
        stop(worker)
    assert AuditEvent.objects.get(pk=event.pk).status == "failed"


def test_a_queued_run_is_cancelled_at_once_and_its_task_does_nothing(worker_db, admin_client_):
    plant("note_0000000000a1", 0.9, 100)
    run = job_create(kind="decay", actor=ADA)
    response = admin_client_.post(f"/api/maintenance/runs/{run.pk}/cancel")
    assert response.status_code == 200 and response.json()["status"] == "cancelled"
    run_job_task.delay(run.pk).get(timeout=60)
    run.refresh_from_db()
    assert run.status == "cancelled" and "before it started" in run.error
    assert notes_store().get_full_note("note_0000000000a1")["importance"] == 0.9
    again = admin_client_.post(f"/api/maintenance/runs/{run.pk}/cancel")
    assert again.status_code == 400 and "nothing to cancel" in again.json()["error"]["message"]


def test_a_running_run_stops_at_its_next_batch_when_cancelled(worker_db, admin_client_):
    plant_stale(400)
    response = admin_client_.post(
        "/api/maintenance/archival",
        json.dumps({"params": {"threshold": 0.05}}),
        content_type="application/json",
    )
    run_id = response.json()["id"]
    deadline = time.monotonic() + 60
    while Run.objects.get(pk=run_id).processed < 50:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    page = admin_client_.get(reverse("memory_app:maintenance_run", args=[run_id])).content
    assert b'id="run-cancel"' in page and b'hx-trigger="every 1s"' in page
    admin_client_.post(reverse("memory_app:maintenance_run_cancel", args=[run_id]))
    run = wait_for(run_id)
    assert run.status == "cancelled", run.error
    archived = 400 - notes_store().count()
    assert 0 < archived < 400 and archived % 50 == 0  # stopped at a batch boundary
    assert run.stats["changes_before_cancel"] == archived
    assert "cancelled by user:ada-admin" in run.error
    assert f"the {archived} changes it made before stopping can be undone" in run.error


def test_undoing_a_run_happens_in_the_worker_and_the_run_shows_undone(worker_db, admin_client_):
    plant_stale(120)
    response = admin_client_.post(
        "/api/maintenance/archival",
        json.dumps({"params": {"threshold": 0.05}}),
        content_type="application/json",
    )
    run = wait_for(response.json()["id"])
    assert run.status == "done" and notes_store().count() == 0
    page = admin_client_.post(reverse("memory_app:maintenance_run_undo", args=[run.pk]))
    undo = Run.objects.get(undo_of=run)
    assert page["Location"] == reverse("memory_app:maintenance_run", args=[undo.pk])
    undo = wait_for(undo.pk)
    assert undo.status == "done", undo.error
    assert undo.stats["undone"] == 120 and undo.processed == undo.total == 120
    assert notes_store().count() == 120
    shown = admin_client_.get(reverse("memory_app:maintenance_run", args=[run.pk])).content
    assert b'id="run-undone"' in shown and b"<strong>Undone</strong>" in shown
    assert b'id="run-undo"' not in shown
    api = admin_client_.post(f"/api/maintenance/runs/{undo.pk}/undo")
    assert api.status_code == 400  # an undo run has nothing of its own to undo
