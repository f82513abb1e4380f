"""Exports and imports are runs of registered jobs: one at a time under the job's lock, run
by the one run task, cancellable; a run the reaper closed holds no lock."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from memory_app.notes.stores import notes_store
from qqweb.backup.services import backup_path, backup_run, export_create, import_create
from qqweb.jobs.errors import JobBusy
from qqweb.jobs.models import JobLock, Run
from qqweb.jobs.registry import HIDDEN_JOBS, JOBS
from qqweb.jobs.runs import run_cancel, runs_reap
from qqweb.jobs.tasks import run_job_task
from qqweb.lib.actors import Actor
from tests.helpers import plant_note
from tests.services import free_port

ADA = Actor("user", "ada-admin")
pytestmark = pytest.mark.django_db


@pytest.fixture
def backup_dir(stores, settings, tmp_path) -> Path:
    settings.QQ_BACKUP_DIR = tmp_path / "backups"
    plant_note("note_000000000001")
    return Path(settings.QQ_BACKUP_DIR)


def test_every_app_registers_its_jobs_with_the_jobs_app():
    assert {"decay", "archival", "dedup_scan"} <= set(JOBS)  # memory_app.notes
    assert {"graph_orphan_scan", "graph_reembed"} <= set(JOBS)  # graph_app
    assert {"export", "import", "vanished_scan", "undo"} <= set(HIDDEN_JOBS)  # backup, facts


def test_a_second_export_while_one_runs_is_refused_naming_the_run(backup_dir):
    first = export_create(actor=ADA)
    Run.objects.filter(pk=first.pk).update(status=Run.RUNNING, heartbeat_at=timezone.now())
    JobLock.objects.create(
        kind="export", run=first, expires_at=timezone.now() + timedelta(minutes=5)
    )
    second = export_create(actor=ADA)
    with pytest.raises(JobBusy, match=f"export is running already \\(run {first.pk}\\)"):
        backup_run(run=second)
    second.refresh_from_db()
    assert second.status == Run.FAILED and f"run {first.pk}" in second.error
    assert not backup_path(second.params["file"]).exists()


def test_a_run_the_reaper_closed_holds_its_lock_no_longer(backup_dir):
    dead = export_create(actor=ADA)  # its worker died while it ran
    Run.objects.filter(pk=dead.pk).update(status=Run.RUNNING, heartbeat_at=timezone.now())
    JobLock.objects.create(
        kind="export", run=dead, expires_at=timezone.now() + timedelta(minutes=5)
    )
    assert runs_reap(now=timezone.now() + timedelta(days=1))["silent_runs"] == 1
    again = export_create(actor=ADA)
    assert backup_run(run=again)["counts"]
    again.refresh_from_db()
    assert again.status == Run.DONE and backup_path(again.params["file"]).is_file()
    assert not JobLock.objects.exists()


def test_an_export_cancelled_while_queued_does_nothing_when_the_run_task_takes_it(backup_dir):
    run = export_create(actor=ADA)
    run_cancel(actor=ADA, run_id=run.pk)
    run_job_task.apply(args=[run.pk]).get()
    run.refresh_from_db()
    assert run.status == Run.CANCELLED and "before it started" in run.error
    assert not backup_path(run.params["file"]).exists()


def test_the_run_task_runs_an_export_to_its_end(backup_dir):
    run = export_create(actor=ADA)
    stats = run_job_task.apply(args=[run.pk]).get()
    run.refresh_from_db()
    assert run.status == Run.DONE and run.stats == stats
    assert backup_path(run.params["file"]).stat().st_size == stats["bytes"]


def test_an_export_that_finds_the_graph_down_is_retried_as_an_outage(backup_dir, settings):
    settings.NEO4J_URI = f"bolt://127.0.0.1:{free_port()}"
    settings.QQ_STORE_TIMEOUT_MS = 200
    run = export_create(actor=ADA)
    result = run_job_task.apply(args=[run.pk])
    assert result.failed()
    run.refresh_from_db()
    assert run.status == Run.FAILED
    assert run.error.startswith("gave up after 4 tries: neo4j is unavailable"), run.error
    assert not backup_path(run.params["file"]).exists()


def test_an_import_cancelled_part_way_does_not_promise_an_undo_it_has_not(backup_dir):
    export = export_create(actor=ADA)
    backup_run(run=export)
    notes_store().collection.delete_many({})
    run = import_create(actor=ADA, file=export.params["file"])

    def cancel_at_the_first_batch(done: int, total: int | None) -> None:
        run_cancel(actor=ADA, run_id=run.pk)

    backup_run(run=run, progress=cancel_at_the_first_batch)
    run.refresh_from_db()
    assert run.status == Run.CANCELLED and "cancelled by user:ada-admin" in run.error
    assert "it recorded no change that can be undone" in run.error
    assert "can be undone" not in run.error.replace("no change that can be undone", "")


def test_a_run_of_a_job_no_app_registers_now_fails_naming_it_when_the_task_takes_it(db):
    run = Run.objects.create(kind="graph_gone", started_by="user:ada-admin")  # app removed
    result = run_job_task.apply(args=[run.pk])
    assert result.failed()
    run.refresh_from_db()
    assert run.status == Run.FAILED  # not queued until the reaper blames the broker
    assert "'graph_gone' is not a registered job" in run.error
