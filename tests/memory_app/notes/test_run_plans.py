"""A destructive job shows its dry run's plan first, and applying executes exactly that
plan: the planned notes by id, each only if unchanged since the plan."""

import json

import pytest
from django.urls import reverse

from memory_app.notes.stores import archive_manager, notes_store
from qqweb.jobs.errors import RunRefused
from qqweb.jobs.models import Run
from qqweb.jobs.runner import job_apply_plan, job_create, job_run
from qqweb.lib.actors import Actor
from tests.helpers import agent_archive_line
from tests.helpers import plant_note as plant

ADA = Actor("user", "ada-admin")
pytestmark = pytest.mark.django_db


def _dry_then_apply(kind, params=None):
    dry = job_create(kind=kind, actor=ADA, dry_run=True, params=params or {})
    job_run(run=dry)
    dry.refresh_from_db()
    return dry


def _apply(dry):
    run = job_apply_plan(actor=ADA, run_id=dry.pk)
    job_run(run=run)
    run.refresh_from_db()
    return run


def test_the_archival_dry_run_keeps_its_plan_and_the_page_asks_with_the_count(
    admin_client_, stores
):
    plant("note_0000000000a1", 0.01, 300)
    plant("note_0000000000a2", 0.01, 300)
    plant("note_0000000000a3", 0.9, 1)
    dry = _dry_then_apply("archival", {"threshold": 0.05})
    assert [item["note_id"] for item in dry.plan] == ["note_0000000000a1", "note_0000000000a2"]
    assert notes_store().count() == 3  # a dry run changes nothing
    page = admin_client_.get(reverse("memory_app:maintenance_run", args=[dry.pk])).content.decode()
    assert "Archive 2 of 3 notes (67%)?" in page
    assert 'id="plan-table"' in page and 'data-note-id="note_0000000000a1"' in page
    assert reverse("memory_app:note_detail", args=["note_0000000000a1"]) in page
    assert "effective importance 0.0" in page and "→ archived" in page
    assert "[" not in page.split('id="plan-table"')[1].split("</table>")[0]  # no Python list


def test_applying_archives_exactly_the_plan_and_skips_notes_changed_since(stores):
    plant("note_0000000000a1", 0.01, 300)
    plant("note_0000000000a2", 0.01, 300)
    dry = _dry_then_apply("archival", {"threshold": 0.05})
    notes_store().update_importance("note_0000000000a2", 0.02)  # the agent, meanwhile
    plant("note_0000000000a3", 0.01, 300)  # below the threshold, but not in the plan
    run = _apply(dry)
    assert run.status == "done", run.error
    assert run.stats == {"planned": 2, "archived": 1, "changed_since_plan": 1, "gone": 0}
    assert notes_store().get_full_note("note_0000000000a1") is None
    assert notes_store().get_full_note("note_0000000000a2") is not None
    assert notes_store().get_full_note("note_0000000000a3") is not None


def test_a_plan_is_applied_once(stores, admin_client_):
    plant("note_0000000000a1", 0.01, 300)
    dry = _dry_then_apply("archival", {"threshold": 0.05})
    _apply(dry)
    again = admin_client_.post(f"/api/maintenance/runs/{dry.pk}/apply")
    assert again.status_code == 400 and "applied by run" in again.json()["error"]["message"]
    not_a_plan = admin_client_.post(f"/api/maintenance/runs/{Run.objects.first().pk}/apply")
    assert not_a_plan.status_code == 400


def test_the_decay_plan_is_written_only_where_the_importance_is_still_the_planned_one(stores):
    plant("note_0000000000a1", 0.9, 100)
    plant("note_0000000000a2", 0.8, 100)
    dry = _dry_then_apply("decay")
    planned = {item["note_id"]: item for item in dry.plan}
    assert set(planned) == {"note_0000000000a1", "note_0000000000a2"}
    assert planned["note_0000000000a1"]["before"] == "0.900"
    notes_store().update_importance("note_0000000000a2", 0.7)  # the agent, meanwhile
    run = _apply(dry)
    assert run.stats["written"] == 1 and run.stats["changed_since_plan"] == 1
    a1 = notes_store().get_full_note("note_0000000000a1")
    assert f"{a1['importance']:.3f}" == planned["note_0000000000a1"]["after"]
    assert notes_store().get_full_note("note_0000000000a2")["importance"] == 0.7


def test_the_purge_plan_drops_exactly_its_lines(stores, admin_client_):
    archive_manager().append_entries(
        [agent_archive_line("note_0000000000b1", 200), agent_archive_line("note_0000000000b2", 10)]
    )
    dry = _dry_then_apply("archive_purge", {"days": 90})
    assert [i["note_id"] for i in dry.plan] == ["note_0000000000b1"]
    body = admin_client_.get(f"/api/maintenance/runs/{dry.pk}/plan").json()
    assert body["summary"] == "Drop 1 of 2 archive lines (50%)" and body["total"] == 1
    assert body["items"][0]["after"] == "dropped from archive.jsonl"
    archive_manager().append_entries([agent_archive_line("note_0000000000b3", 300)])
    run = _apply(dry)
    assert run.stats["dropped"] == 1
    left = {n.note_id for n in archive_manager().read().notes}
    assert left == {"note_0000000000b2", "note_0000000000b3"}  # b3 came after the plan


def test_the_consolidation_plan_merges_its_pairs_and_skips_a_changed_one(stores):
    # each pair: one text twice (a pair whose texts differ in a value is left for review)
    a = plant("note_0000000000c1", 0.9, 10)
    plant("note_0000000000c2", 0.5, 10, embedding=a["embedding"], content=a["content"])
    b = plant("note_0000000000c3", 0.9, 10)
    plant("note_0000000000c4", 0.5, 10, embedding=b["embedding"], content=b["content"])
    dry = _dry_then_apply("auto_consolidation", {"force": True, "threshold": 0.99})
    assert len(dry.plan) == 2 and notes_store().count() == 4
    notes_store().update_importance("note_0000000000c4", 0.6)
    run = _apply(dry)
    assert run.stats["merged"] == 1 and run.stats["changed_since_plan"] == 1
    assert notes_store().count() == 3


def test_the_page_previews_a_destructive_job_instead_of_running_it(admin_client_, stores, settings):
    response = admin_client_.post(
        reverse("memory_app:maintenance_start", args=["archival"]), {"threshold": "0.05"}
    )
    run = Run.objects.get()
    assert run.dry_run is True  # "Run" of a destructive job is its preview
    assert response["Location"] == reverse("memory_app:maintenance_run", args=[run.pk])
    page = admin_client_.get(reverse("memory_app:maintenance")).content.decode()
    assert 'id="job-preview-archival"' in page and 'id="job-run-archival"' not in page
    assert 'id="job-run-dedup_scan"' in page
    assert json.loads(admin_client_.get(f"/api/maintenance/runs/{run.pk}").content)["dry_run"]


def test_an_open_run_page_polls_itself_and_a_reaped_run_says_why(admin_client_, stores):
    run = job_create(kind="archival", actor=ADA, dry_run=True)
    url = reverse("memory_app:maintenance_run", args=[run.pk])
    partial = admin_client_.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert partial.lstrip().startswith('<div id="run-detail"') and "every 1s" in partial
    assert 'data-run-status="queued"' in partial and 'id="run-cancel"' in partial
    Run.objects.filter(pk=run.pk).update(
        status="failed", error="never started: its task did not reach a worker within 30 min"
    )
    page = admin_client_.get(url).content.decode()
    assert "every 1s" not in page and 'id="run-cancel"' not in page
    assert "never started" in page.split('id="run-error"')[1]


def test_a_dry_run_without_a_plan_shows_its_sample_as_linked_rows(admin_client_, stores):
    run = Run.objects.create(
        kind="dedup_scan",
        started_by="user:ada-admin",
        dry_run=True,
        status="done",
        stats={"pairs_found": 1, "sample": [["note_0000000000a1", "note_0000000000a2", 0.993]]},
    )
    page = admin_client_.get(reverse("memory_app:maintenance_run", args=[run.pk])).content.decode()
    sample = page.split('id="run-sample"')[1].split("</table>")[0]
    assert reverse("memory_app:note_detail", args=["note_0000000000a2"]) in sample
    assert "0.993" in sample and "[" not in sample


def test_a_plan_whose_guard_was_lost_is_refused_before_it_archives_anything(stores):
    plant("note_0000000000a1", 0.01, 300)
    plant("note_0000000000a2", 0.01, 300)
    dry = _dry_then_apply("archival", {"threshold": 0.05})
    plan = [dict(item) for item in dry.plan]
    del plan[1]["guard"]["updated_at"]  # a stored plan damaged since it was made
    Run.objects.filter(pk=dry.pk).update(plan=plan)
    notes_store().update_importance("note_0000000000a2", 0.02)  # the agent, meanwhile
    run = job_apply_plan(actor=ADA, run_id=dry.pk)
    with pytest.raises(RunRefused, match="'note_0000000000a2' has no updated_at in its guard"):
        job_run(run=run)
    run.refresh_from_db()
    assert run.status == "failed" and "cannot be applied safely" in run.error
    assert notes_store().get_full_note("note_0000000000a1") is not None  # nothing archived
    assert notes_store().get_full_note("note_0000000000a2") is not None
