"""The Backup page, the API and the commands: admin only, an export with its progress in
the worker, a download, an upload previewed before it is imported."""

from __future__ import annotations

import json
import time

import pytest
from django.core.management import CommandError, call_command

from memory_app.notes.stores import notes_store
from qqweb.backup.services import backup_path
from qqweb.jobs.models import Run
from tests.helpers import plant_note


def wait_for(run_id: int, seconds: float = 90) -> Run:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        run = Run.objects.get(pk=run_id)
        if run.status in ("done", "failed"):
            return run
        time.sleep(0.3)
    raise AssertionError(f"run {run_id} still {run.status}")


@pytest.fixture
def worker_stores(celery_worker, settings, tmp_path):
    """The test's settings on the stores the worker uses."""
    settings.QQ_MONGO_DB = celery_worker["QQ_MONGO_DB"]
    settings.MEMORY_DIR = celery_worker["MEMORY_DIR"]
    settings.QQ_BACKUP_DIR = celery_worker["QQ_BACKUP_DIR"]
    notes_store().clear_all()
    for i in range(3):
        plant_note(f"note_00000000000{i}")
    return celery_worker


@pytest.mark.django_db(transaction=True)
def test_an_export_runs_in_the_worker_with_progress_and_can_be_downloaded(
    worker_stores, admin_client_
):
    response = admin_client_.post("/api/backup/exports")
    assert response.status_code == 202, response.content
    run = wait_for(response.json()["id"])
    assert run.status == "done", run.error
    assert run.stats["counts"]["note"] == 3
    assert run.processed == run.total
    name = run.stats["file"]
    try:
        download = admin_client_.get(f"/api/backup/files/{name}")
        assert download.status_code == 200
        lines = b"".join(download.streaming_content).decode().splitlines()
        assert json.loads(lines[0])["version"] == 1
        assert json.loads(lines[-1])["counts"]["note"] == 3
        page = admin_client_.get(f"/backup/runs/{run.pk}/")
        assert f"Download {name}".encode() in page.content
    finally:
        backup_path(name).unlink()


@pytest.mark.django_db(transaction=True)
def test_an_upload_is_previewed_with_its_conflicts_before_it_is_imported(
    worker_stores, admin_client_, tmp_path
):
    export = tmp_path / "mine.ndjson"
    call_command("export_memory", str(export))
    notes_store().collection.delete_one({"note_id": "note_000000000000"})
    with open(export, "rb") as handle:
        uploaded = admin_client_.post("/backup/upload/", {"file": handle})
    assert uploaded.status_code == 302
    preview = wait_for(Run.objects.filter(kind="import").latest("pk").pk)
    try:
        assert preview.dry_run and preview.status == "done", preview.error
        assert preview.stats["preview"]["notes_present"] == 2
        page = admin_client_.get(uploaded["Location"])
        assert b"Import, keeping the 2 record(s) the stores hold already" in page.content

        refused = admin_client_.post(
            "/api/backup/imports",
            json.dumps({"file": preview.params["file"], "dry_run": False}),
            content_type="application/json",
        )
        run = wait_for(refused.json()["id"])
        assert run.status == "failed" and "already hold 2" in run.error
        assert notes_store().get_note("note_000000000000") is None

        accepted = admin_client_.post(
            "/backup/import/", {"file": preview.params["file"], "accept_conflicts": "1"}
        )
        run = wait_for(Run.objects.filter(kind="import").latest("pk").pk)
        assert accepted.status_code == 302 and run.status == "done", run.error
        assert run.stats["inserted"]["note"] == 1
        assert notes_store().get_note("note_000000000000") is not None
    finally:
        backup_path(preview.params["file"]).unlink()


@pytest.mark.django_db
def test_backup_is_for_admins_only(curator_client, viewer_client):
    for client in (curator_client, viewer_client):
        assert client.get("/backup/").status_code == 403
        assert client.post("/api/backup/exports").status_code == 403
        assert client.get("/api/backup/files").status_code == 403


@pytest.mark.django_db
def test_a_name_that_is_not_a_backup_file_is_refused(admin_client_):
    response = admin_client_.post(
        "/api/backup/imports",
        json.dumps({"file": "../../etc/passwd"}),
        content_type="application/json",
    )
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "file"
    assert admin_client_.get("/backup/files/..%2Fsettings.py").status_code == 404


def test_the_import_command_prints_the_conflicts_and_writes_nothing(stores, tmp_path, db):
    plant_note("note_000000000009")
    export = tmp_path / "e.ndjson"
    call_command("export_memory", str(export))

    with pytest.raises(CommandError, match="already hold 1"):
        call_command("import_memory", str(export))
    call_command("import_memory", str(export), "--accept-conflicts")

    assert notes_store().collection.count_documents({}) == 1
