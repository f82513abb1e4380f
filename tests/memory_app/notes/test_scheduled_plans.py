"""Nothing destructive runs unreviewed by default: a scheduled archival (decay, purge,
auto-consolidation) makes its plan and waits for an admin, the Overview and the
Maintenance page say so; a schedule an admin opts into applying still stops at
QQ_SCHEDULE_MAX_SHARE of the notes. The schedule runs through the real beat task, Redis
and Celery worker, the way beat sends it."""

import json
import re
import time

import pytest
from celery import current_app
from django.urls import reverse
from django_celery_beat.models import PeriodicTask

from memory_app.notes.selectors.jobs import plan_summary
from memory_app.notes.services.jobs import (
    scheduled_plan_settle,
    scheduled_run_create,
    schedules_ensure,
)
from memory_app.notes.stores import notes_store
from qqweb.audit.models import AuditEvent
from qqweb.audit.services import audit_undo
from qqweb.jobs.models import Run
from qqweb.jobs.runner import job_apply_plan, job_run
from qqweb.lib.actors import Actor
from qqweb.recall.services import pin_create
from tests.helpers import note_content
from tests.helpers import plant_note as plant

ADA = Actor("user", "ada-admin", role="admin")


def wait_for_runs(kind, count, seconds=90):
    """The ``count`` runs of ``kind`` once all of them are closed (oldest first)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        runs = list(Run.objects.filter(kind=kind).order_by("pk"))
        if len(runs) >= count and all(r.status in Run.CLOSED for r in runs):
            return runs
        time.sleep(0.3)
    raise AssertionError(f"{kind}: {[(r.pk, r.status) for r in runs]}")


def beat_sends(kind):
    """What beat does at the schedule's time: the task with the entry's kwargs."""
    task = PeriodicTask.objects.get(name__startswith="qqweb:", kwargs__contains=f'"{kind}"')
    current_app.send_task(task.task, kwargs=json.loads(task.kwargs))


def plant_notes(low, total):
    """``total`` notes of which ``low`` are below the archival threshold (0.05)."""
    for n in range(total):
        plant(f"note_{n:016d}", 0.01 if n < low else 0.9, 300 if n < low else 1)


def set_apply(client, kind, apply):
    task = PeriodicTask.objects.get(kwargs__contains=f'"{kind}"')
    data = {"minute": "0", "hour": "4", "day_of_week": "0", "enabled": "on"}
    response = client.post(
        reverse("memory_app:maintenance_schedule", args=[task.pk]),
        {**data, **({"apply": "on"} if apply else {})},
    )
    assert response.status_code == 302
    return task


@pytest.fixture
def worker_notes(celery_worker, settings):
    settings.QQ_MONGO_DB = celery_worker["QQ_MONGO_DB"]  # the database the worker reads
    notes_store().clear_all()
    schedules_ensure()
    yield
    notes_store().clear_all()


@pytest.mark.django_db(transaction=True)
def test_a_scheduled_archival_waits_with_its_plan_on_the_overview_and_maintenance_pages(
    worker_notes, admin_client_
):
    plant_notes(low=2, total=3)
    beat_sends("archival")
    [run] = wait_for_runs("archival", 1)
    assert run.status == "done" and run.dry_run and run.started_by == "job:schedule"
    assert notes_store().count() == 3  # nothing archived
    link = reverse("memory_app:maintenance_run", args=[run.pk])
    for page in ("memory_app:overview", "memory_app:maintenance"):
        html = admin_client_.get(reverse(page)).content.decode()
        waits = html.split('id="plans-waiting"')[1].split("</section>")[0]
        assert "A plan waits:</strong> archive 2 of 3 notes (67%)" in waits, page
        assert f'href="{link}" class="plan-review">Review and apply it' in waits, page
    run_page = admin_client_.get(link).content.decode()
    assert 'id="plan-apply-button"' in run_page and "Archive 2 of 3 notes (67%)" in run_page


@pytest.mark.django_db(transaction=True)
def test_an_opted_in_schedule_applies_a_plan_within_the_cap(worker_notes, admin_client_):
    set_apply(admin_client_, "archival", True)
    event = AuditEvent.objects.get(action="schedule.update")
    assert (event.before["apply"], event.after["apply"], event.actor) == (
        False,
        True,
        "user:ada-admin",
    )
    plant_notes(low=1, total=21)  # 1 of 21 notes: 4.8%, within the 5% cap
    beat_sends("archival")
    dry, applied = wait_for_runs("archival", 2)
    assert applied.plan_of_id == dry.pk and applied.status == "done", applied.error
    assert applied.stats["archived"] == 1 and notes_store().count() == 20
    html = admin_client_.get(reverse("memory_app:overview")).content.decode()
    assert 'id="plans-waiting"' not in html


@pytest.mark.django_db(transaction=True)
def test_an_opted_in_schedule_over_the_cap_stops_and_waits(worker_notes, admin_client_):
    set_apply(admin_client_, "archival", True)
    plant_notes(low=2, total=21)  # 2 of 21 notes: 9.5%, over the 5% cap
    beat_sends("archival")
    [run] = wait_for_runs("archival", 1)
    deadline = time.monotonic() + 60
    while "waits" not in run.stats and time.monotonic() < deadline:  # the follow-up task
        time.sleep(0.3)
        run.refresh_from_db()
    assert Run.objects.filter(kind="archival").count() == 1  # none applies it
    assert run.dry_run and notes_store().count() == 21
    assert (
        "would change 2 of 21 notes (9.5%), more than QQ_SCHEDULE_MAX_SHARE (5%)"
        in (run.stats["waits"])
    )
    html = admin_client_.get(reverse("memory_app:maintenance")).content.decode()
    waits = html.split('id="plans-waiting"')[1].split("</section>")[0]
    assert "A plan waits:</strong> archive 2 of 21 notes (10%)" in waits
    assert "not applied on its own because it would change 2 of 21 notes" in waits


@pytest.mark.django_db
def test_a_waiting_plan_expires_when_a_planned_note_changes(admin_client_, stores):
    plant_notes(low=2, total=3)
    run = scheduled_run_create(kind="archival")
    job_run(run=run)
    notes_store().update_importance("note_0000000000000001", 0.02)  # the agent, meanwhile
    html = admin_client_.get(reverse("memory_app:overview")).content.decode()
    assert "A plan expired:</strong> archive 2 of 3 notes (67%). 1 of its notes changed" in html
    run_page = admin_client_.get(reverse("memory_app:maintenance_run", args=[run.pk]))
    assert 'id="plan-expired"' in run_page.content.decode()
    assert 'id="plan-apply-button"' not in run_page.content.decode()
    with pytest.raises(Exception, match="this scheduled plan expired: 1 of its notes"):
        job_apply_plan(actor=ADA, run_id=run.pk)
    assert notes_store().count() == 3


@pytest.mark.django_db(transaction=True)
def test_a_curator_sees_a_waiting_plan_but_an_admin_applies_it(
    curator_client, admin_client_, stores
):
    """Applying a plan is running maintenance, an admin's part (docs/security.md): a
    curator reads the plan, is told an admin applies it, and is refused (403) with
    nothing archived."""
    plant_notes(low=2, total=3)
    run = scheduled_run_create(kind="archival")
    job_run(run=run)
    link = reverse("memory_app:maintenance_run", args=[run.pk])
    page = curator_client.get(link).content.decode()
    assert "Archive 2 of 3 notes (67%)" in page and 'id="plan-apply-button"' not in page
    assert "An admin applies this plan" in page
    assert curator_client.post(f"{link}apply/").status_code == 403
    api = curator_client.post(f"/api/maintenance/runs/{run.pk}/apply")
    assert api.status_code == 403 and api.json()["error"]["code"] == "forbidden"
    assert notes_store().count() == 3
    assert not Run.objects.filter(kind="archival", dry_run=False).exists()
    assert 'id="plan-apply-button"' in admin_client_.get(link).content.decode()


@pytest.mark.django_db
def test_a_decay_plan_that_raises_some_importances_says_so(stores):
    plant("note_00000000000a1", 0.9, 40)  # decays: lower
    plant("note_00000000000a2", 0.8, 30)  # lower
    plant("note_00000000000a3", 0.375, 0, access_count=10)  # read often: 0.375 -> 0.875
    run = scheduled_run_create(kind="decay")
    job_run(run=run)
    run.refresh_from_db()
    assert plan_summary(run) == (
        "Change the stored importance of 3 of 3 notes (100%): 2 lower, 1 higher"
    )
    assert notes_store().get_full_note("note_00000000000a3")["importance"] == 0.375


@pytest.mark.django_db
def test_a_schedule_edit_is_audited_and_undone(admin_client_, admin_user, stores):
    schedules_ensure()
    task = set_apply(admin_client_, "decay", True)
    assert json.loads(PeriodicTask.objects.get(pk=task.pk).kwargs)["apply"] is True
    page = admin_client_.get(reverse("memory_app:maintenance")).content.decode()
    assert 'id="schedule-apply-decay" checked' in page
    assert 'id="schedule-apply-dedup_scan"' not in page  # a scan changes nothing
    event = AuditEvent.objects.get(action="schedule.update")
    audit_undo(actor=Actor("user", "ada-admin", admin_user.pk, "admin"), event_id=event.pk)
    assert "apply" not in json.loads(PeriodicTask.objects.get(pk=task.pk).kwargs)
    task = PeriodicTask.objects.get(kwargs__contains='"dedup_scan"')
    refused = admin_client_.post(
        reverse("memory_app:maintenance_schedule", args=[task.pk]),
        {"minute": "30", "hour": "3", "day_of_week": "*", "enabled": "on", "apply": "on"},
        follow=True,
    )
    assert "dedup_scan has no plan to apply" in refused.content.decode()


def plant_pinned_archival(pinned_in_plan):
    """20 notes the archival keeps and one it plans at threshold 0.5 (1 of 21: within the
    5% cap), which the agent recalls (effective importance 0.3, above 0.2); the pin is on
    that note, or on a kept one."""
    plant_notes(low=0, total=20)
    lumen = "Lumen stores its notes in MongoDB with embeddings"
    plant("note_lumen000001", 0.3, 0, content=lumen)
    item = "note_lumen000001" if pinned_in_plan else "note_0000000000000000"
    query = lumen if pinned_in_plan else note_content("note_0000000000000000")
    pin_create(actor=ADA, query=query, item_id=item)


@pytest.mark.django_db
@pytest.mark.parametrize("pinned_in_plan", [True, False])
def test_an_opted_in_archival_that_would_lose_a_pinned_recall_waits_with_the_reason(
    stores, admin_client_, settings, pinned_in_plan
):
    settings.QQ_ARCHIVE_THRESHOLD = 0.5  # the schedule's archival plans note_lumen000001
    plant_pinned_archival(pinned_in_plan)
    run = scheduled_run_create(kind="archival")
    job_run(run=run)
    applying = scheduled_plan_settle(run_id=run.pk, apply=True)
    run.refresh_from_db()
    assert [item["note_id"] for item in run.plan] == ["note_lumen000001"]
    if not pinned_in_plan:  # the control: the same plan, losing no pin, applies
        assert applying is not None and "waits" not in run.stats
        return
    assert applying is None and Run.objects.filter(kind="archival").count() == 1
    assert run.stats["waits"] == "it would lose 1 pinned recall: it waits for review"
    assert notes_store().count() == 21
    html = admin_client_.get(reverse("memory_app:overview")).content.decode()
    waits = html.split('id="plans-waiting"')[1].split("</section>")[0]
    assert "not applied on its own because it would lose 1 pinned recall" in waits


@pytest.mark.django_db
@pytest.mark.parametrize("pinned", ["note_lumen000001", "note_tea00000001"])
def test_an_opted_in_decay_that_would_lose_a_pinned_recall_waits_with_the_reason(
    stores, settings, pinned
):
    """0.35 ten days old is 0.227 today (recalled); the decay writes 0.227, which the
    agent's retrieval decays again below 0.2. The tea note stays above it: pinned there,
    the same plan applies."""
    settings.QQ_SCHEDULE_MAX_SHARE = 1.0  # the share cap out of the way: only the pin stops it
    lumen = "Lumen stores its notes in MongoDB with embeddings"
    plant("note_lumen000001", 0.35, 10, content=lumen)
    plant("note_tea00000001", 0.9, 10, content="Ada prefers green tea in the morning")
    query = lumen if pinned == "note_lumen000001" else "Ada prefers green tea in the morning"
    pin_create(actor=ADA, query=query, item_id=pinned)
    run = scheduled_run_create(kind="decay")
    job_run(run=run)
    applying = scheduled_plan_settle(run_id=run.pk, apply=True)
    run.refresh_from_db()
    if pinned == "note_tea00000001":  # the control: the same plan, losing no pin, applies
        assert applying is not None and "waits" not in run.stats
        return
    assert applying is None
    assert run.stats["waits"] == "it would lose 1 pinned recall: it waits for review"
    assert notes_store().get_full_note("note_lumen000001")["importance"] == 0.35


@pytest.mark.django_db
def test_an_expired_plan_names_the_notes_that_changed_latest_first(admin_client_, stores):
    plant_notes(low=24, total=25)
    run = scheduled_run_create(kind="archival")
    job_run(run=run)
    changed = [f"note_{n:016d}" for n in range(22)]
    for n, note_id in enumerate(changed):  # the agent, meanwhile, one note after the other
        notes_store().update_importance(note_id, 0.02 + n / 1000)
        time.sleep(0.002)
    html = admin_client_.get(reverse("memory_app:maintenance_run", args=[run.pk])).content
    banner = html.decode().split('id="plan-expired"')[1].split("</div>")[0]
    assert "22 of its notes changed" in banner
    item = r'data-note-id="(note_\d+)"><a href="/notes/(note_\d+)/">([^<]+)</a>'
    named = re.findall(item, banner)
    assert [n for n, _, _ in named] == changed[::-1][:20]  # the latest change first
    assert all(n == link for n, link, _ in named)
    assert named[0][2] == note_content(changed[-1])  # its text, not only its id
    assert "and 2 more</a>" in banner and "/notes/?sort=updated&amp;direction=desc" in banner
