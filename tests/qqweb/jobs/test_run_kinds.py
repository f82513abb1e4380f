"""Every kind of run a Run records (the notes and graph jobs, undo, the backup's exports
and imports, the facts scan, the memory tests) has a run page a viewer can open, and
asking to apply its plan when it has none is refused with the reason (409), never a
500."""

from __future__ import annotations

import pytest
from django.urls import reverse

from memory_app.facts.services.vanished import VANISHED_SCAN
from qqweb.backup.services import EXPORT, IMPORT, backup_run, export_create, import_create
from qqweb.jobs.models import Run
from qqweb.jobs.registry import JOBS, UNDO_KIND, run_kinds
from qqweb.jobs.runner import job_create
from qqweb.lib.actors import Actor
from qqweb.recall.jobs import MEMORY_TESTS
from tests.helpers import plant_note

ADA = Actor("user", "ada-admin")
pytestmark = pytest.mark.django_db
RUN_KINDS = run_kinds()  # every registered job, the apps' and the jobs app's
WITHOUT_PLAN = sorted(kind for kind in RUN_KINDS if kind not in JOBS or JOBS[kind].apply is None)


@pytest.fixture
def backup_runs(stores, settings, tmp_path) -> dict[str, Run]:
    """A finished export, the preview of importing it, and the import itself."""
    settings.QQ_BACKUP_DIR = tmp_path / "backups"
    for i in range(3):
        plant_note(f"note_00000000000{i}")
    export = export_create(actor=ADA)
    backup_run(run=export)
    preview = import_create(actor=ADA, file=export.params["file"], dry_run=True)
    backup_run(run=preview)
    imported = import_create(actor=ADA, file=export.params["file"], accept_conflicts=True)
    backup_run(run=imported)
    return {"export": export, "import preview": preview, "import": imported}


def _run_of(kind: str) -> Run:
    if kind in JOBS:
        return job_create(kind=kind, actor=ADA)
    return Run.objects.create(kind=kind, started_by=ADA.label)


def test_the_registry_knows_the_backups_the_facts_scans_and_the_memory_tests_runs():
    assert {EXPORT, IMPORT, UNDO_KIND, VANISHED_SCAN, MEMORY_TESTS, *JOBS} == set(RUN_KINDS)


@pytest.mark.parametrize("kind", RUN_KINDS)
def test_a_viewer_opens_the_page_of_a_run_of_every_kind(kind, viewer_client):
    run = _run_of(kind)
    page = viewer_client.get(reverse("memory_app:maintenance_run", args=[run.pk]))
    assert page.status_code == 200
    assert f"run #{run.pk}" in page.content.decode().lower()


def test_finished_exports_and_imports_have_a_page_and_refuse_to_be_applied(
    backup_runs, viewer_client, admin_client_
):
    for what, run in backup_runs.items():
        run.refresh_from_db()
        assert run.status == "done", (what, run.error)
        page = viewer_client.get(reverse("memory_app:maintenance_run", args=[run.pk]))
        assert page.status_code == 200, what
        assert f"{run.kind} run #{run.pk}" in page.content.decode().lower()
        response = admin_client_.post(f"/api/maintenance/runs/{run.pk}/apply")
        assert response.status_code == 409, what
        assert "no plan to apply" in response.json()["error"]["message"]


@pytest.mark.parametrize("kind", WITHOUT_PLAN)
def test_applying_a_run_of_a_kind_without_a_plan_is_refused_with_the_reason(kind, admin_client_):
    run = _run_of(kind)
    response = admin_client_.post(f"/api/maintenance/runs/{run.pk}/apply")
    assert response.status_code == 409
    message = response.json()["error"]["message"]
    assert f"run {run.pk}" in message and "no plan to apply" in message
    assert Run.objects.count() == 1  # nothing started
    page = admin_client_.post(reverse("memory_app:maintenance_run_apply", args=[run.pk]))
    assert page.status_code == 302
    shown = admin_client_.get(page["Location"]).content.decode()
    assert "no plan to apply" in shown


def test_applying_a_run_that_does_not_exist_is_404(admin_client_):
    response = admin_client_.post("/api/maintenance/runs/999999/apply")
    assert response.status_code == 404
    assert "no run 999999" in response.json()["error"]["message"]
