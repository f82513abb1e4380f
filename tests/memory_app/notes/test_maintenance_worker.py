"""Every maintenance job through the real Celery worker and Redis broker, started from the
API the way a script would; the Maintenance page and the per-job commands."""

import json
import time

import pytest
from django.core.management import call_command
from django.urls import reverse

from memory_app.notes.lib.mongo_store import utcnow_naive
from memory_app.notes.services.jobs import schedules_ensure
from memory_app.notes.stores import notes_store
from qqweb.jobs.models import Run
from tests.helpers import plant_note as plant

NOW = utcnow_naive()


def wait_for(run_id, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        run = Run.objects.get(pk=run_id)
        if run.status in ("done", "failed"):
            return run
        time.sleep(0.3)
    raise AssertionError(f"run {run_id} still {run.status}")


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("job", "params", "check"),
    [
        ("decay", {}, lambda s: s["written"] == 3),
        ("archival", {"threshold": 0.05}, lambda s: s["archived"] == 1),
        ("promotion_scan", {}, lambda s: s["candidates"] == 0),
        ("archive_purge", {"days": 90}, lambda s: s["dropped"] == 0),
        ("reembed", {"scope": "missing"}, lambda s: s["embedded"] == 1),
        ("dedup_scan", {"threshold": 0.99}, lambda s: s["pairs_found"] == 1),
        ("auto_consolidation", {"force": True, "threshold": 0.99}, lambda s: s["merged"] == 1),
        ("vector_index_rebuild", {}, lambda s: s["indexed"] == 2),
        ("graph_orphan_scan", {}, lambda s: s["orphans"] == 0),
        ("graph_reembed", {}, lambda s: s["candidates"] == 0),
    ],
)
def test_each_job_runs_in_the_worker(celery_worker, settings, admin_client_, job, params, check):
    settings.QQ_MONGO_DB = celery_worker["QQ_MONGO_DB"]  # the database the worker reads
    notes_store().clear_all()
    a1 = plant("note_0000000000a1", 0.9, 10)
    plant("note_0000000000a2", 0.03, 300, embedding=[])
    # the same text and vector as a1: one near-duplicate pair
    plant("note_0000000000a3", 0.8, 12, embedding=a1["embedding"], content=a1["content"])
    response = admin_client_.post(
        f"/api/maintenance/{job}", json.dumps({"params": params}), content_type="application/json"
    )
    assert response.status_code == 202, response.content
    run = wait_for(response.json()["id"])
    assert run.status == "done", run.error
    assert check(run.stats), run.stats
    assert run.started_by == "user:ada-admin"
    notes_store().clear_all()


@pytest.mark.django_db
def test_the_api_refuses_unknown_jobs_and_parameters_and_non_admins(admin_client_, curator_client):
    assert (
        admin_client_.post(
            "/api/maintenance/vacuum", "{}", content_type="application/json"
        ).status_code
        == 400
    )
    bad = admin_client_.post(
        "/api/maintenance/decay",
        json.dumps({"params": {"$set": 1}}),
        content_type="application/json",
    )
    assert bad.status_code == 422 and bad.json()["error"]["fields"] == ["body.params.$set"]
    assert (
        curator_client.post(
            "/api/maintenance/decay", "{}", content_type="application/json"
        ).status_code
        == 403
    )
    assert Run.objects.count() == 0


@pytest.mark.django_db
def test_the_page_lists_jobs_runs_and_the_default_schedule(admin_client_, viewer_client, stores):
    schedules_ensure()
    admin_client_.post(reverse("memory_app:maintenance_start", args=["decay"]), {"dry_run": "on"})
    page = admin_client_.get(reverse("memory_app:maintenance")).content.decode()
    assert "Decay pass" in page and "dry run" in page and "qqweb: Archive purge" in page
    assert Run.objects.get().dry_run is True
    assert (
        "Run</button>" not in viewer_client.get(reverse("memory_app:maintenance")).content.decode()
    )
    assert (
        viewer_client.post(reverse("memory_app:maintenance_start", args=["decay"])).status_code
        == 403
    )


@pytest.mark.django_db
def test_a_schedule_is_edited_and_bad_cron_is_refused(admin_client_, stores):
    from django_celery_beat.models import PeriodicTask

    schedules_ensure()
    task = PeriodicTask.objects.get(name="qqweb: Decay pass")
    admin_client_.post(
        reverse("memory_app:maintenance_schedule", args=[task.pk]),
        {"minute": "15", "hour": "2", "day_of_week": "*", "enabled": "on"},
    )
    task.refresh_from_db()
    assert (task.crontab.minute, task.crontab.hour, task.enabled) == ("15", "2", True)
    page = admin_client_.post(
        reverse("memory_app:maintenance_schedule", args=[task.pk]),
        {"minute": "99", "hour": "2", "day_of_week": "*"},
        follow=True,
    )
    assert "not a valid crontab" in page.content.decode()
    task.refresh_from_db()
    assert task.crontab.minute == "15"


@pytest.mark.django_db
def test_a_command_runs_a_job_with_a_progress_bar_and_a_summary(capsys, mongo):
    plant("note_0000000000a1", 0.9, 10)
    call_command("decay_pass", "--dry-run")
    out = capsys.readouterr().out
    assert "[##############################] 1/1" in out
    assert "Dry run: Decay pass" in out and '"changed": 1' in out
    assert notes_store().get_full_note("note_0000000000a1")["importance"] == 0.9


@pytest.mark.django_db
def test_a_run_is_undone_as_an_audit_batch(admin_client_, mongo):
    """(The page and ``/api/maintenance/runs/{id}/undo`` undo in the worker:
    test_run_lifecycle_worker.py.)"""
    from qqweb.jobs.runner import job_create, job_run
    from qqweb.lib.actors import Actor

    plant("note_0000000000a1", 0.9, 10)
    run = job_create(kind="decay", actor=Actor("user", "ada-admin"))
    job_run(run=run)
    assert notes_store().get_full_note("note_0000000000a1")["importance"] < 0.9
    body = admin_client_.post(f"/api/audit/batches/{run.batch_id}/undo").json()
    assert body == {"undone": 1, "refused": []}
    assert notes_store().get_full_note("note_0000000000a1")["importance"] == 0.9
    body = admin_client_.post(f"/api/audit/batches/{run.batch_id}/undo").json()
    assert body == {"undone": 0, "refused": []}


@pytest.mark.django_db
def test_a_run_undo_needs_the_admin_role_its_user_holds_when_the_worker_runs_it(
    admin_user, curator, mongo
):
    """The undo run carries who asked; the worker checks the role they hold then: an admin
    undoes the run, and one whose admin role was taken away meanwhile is refused."""
    from django.contrib.auth.models import Group

    from qqweb.audit.errors import UndoForbidden
    from qqweb.jobs.runner import job_create, job_run, job_undo_create
    from qqweb.lib.actors import Actor

    plant("note_0000000000a1", 0.9, 10)
    run = job_create(kind="decay", actor=Actor("user", "ada-admin"))
    job_run(run=run)
    demoted = job_undo_create(
        actor=Actor("user", "ada-admin", admin_user.pk, "admin"), run_id=run.pk
    )
    admin_user.groups.set([Group.objects.get(name="curator")])
    with pytest.raises(UndoForbidden):
        job_run(run=demoted)
    demoted.refresh_from_db()
    assert demoted.status == "failed" and "needs the admin role" in demoted.error
    admin_user.groups.set([Group.objects.get(name="admin")])
    undo = job_undo_create(actor=Actor("user", "ada-admin", admin_user.pk, "admin"), run_id=run.pk)
    job_run(run=undo)
    undo.refresh_from_db()
    assert undo.status == "done" and undo.stats["undone"] == 1, undo.error
    assert notes_store().get_full_note("note_0000000000a1")["importance"] == 0.9
