"""The runs and job locks moved from memory_app to the jobs app without moving their
tables: a database migrated before the move keeps every run, with its plan, its links and
its lock."""

import uuid

import pytest
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.utils import timezone

from qqweb.jobs.models import JobLock, Run
from tests.migrations import leaf_migrations, migrate

BEFORE_THE_MOVE = [("memory_app", "0007_run_plans_cancel_undo"), ("jobs", None)]


@pytest.mark.django_db(transaction=True)
def test_it_keeps_the_runs_plans_and_locks_of_a_database_migrated_before_the_move():
    latest = leaf_migrations()
    old_apps = migrate(BEFORE_THE_MOVE).loader.project_state(BEFORE_THE_MOVE[:1]).apps
    OldRun = old_apps.get_model("memory_app", "MaintenanceRun")
    OldLock = old_apps.get_model("memory_app", "JobLock")
    batch = uuid.uuid4()
    plan = OldRun.objects.create(
        kind="archival",
        started_by="user:ada",
        dry_run=True,
        status="done",
        plan=[{"note_id": "n1"}],
        plan_size=1,
        batch_id=batch,
        stats={"would_archive": 1},
    )
    applying = OldRun.objects.create(
        kind="archival", started_by="user:ada", status="running", plan_of=plan
    )
    OldLock.objects.create(kind="archival", run=applying, expires_at=timezone.now())

    migrate(latest)

    runs = list(Run.objects.order_by("id"))
    assert [(r.kind, r.status, r.dry_run) for r in runs] == [
        ("archival", "done", True),
        ("archival", "running", False),
    ]
    assert runs[0].plan == [{"note_id": "n1"}] and runs[0].batch_id == batch
    assert runs[0].stats == {"would_archive": 1}
    assert runs[1].plan_of == runs[0]
    assert list(runs[0].applications.all()) == [runs[1]]
    assert JobLock.objects.get(kind="archival").run == runs[1]


@pytest.mark.django_db(transaction=True)
def test_it_moves_the_content_type_and_its_permissions():
    latest = leaf_migrations()
    migrate(BEFORE_THE_MOVE)
    ContentType.objects.filter(model__in=("maintenancerun", "run")).delete()
    old = ContentType.objects.create(app_label="memory_app", model="maintenancerun")
    Permission.objects.create(content_type=old, codename="view_maintenancerun", name="Can view")

    migrate(latest)

    ContentType.objects.clear_cache()
    moved = ContentType.objects.get(pk=old.pk)
    assert (moved.app_label, moved.model) == ("jobs", "run")
    assert Permission.objects.filter(content_type=moved).exists()
