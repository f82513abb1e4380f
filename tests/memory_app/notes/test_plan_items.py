"""A plan kept on a run in the JSON shape runs have stored so far is read back and applied
exactly as before: the plan items are typed in the code, the run's JSON did not change."""

import pytest

from memory_app.notes.job_plans import plan_from_json, plan_to_json
from memory_app.notes.stores import archive_manager, notes_store
from qqweb.audit.services import batch_undo
from qqweb.jobs.models import Run
from qqweb.jobs.runner import job_apply_plan, job_create, job_run
from qqweb.lib.actors import Actor
from tests.helpers import agent_archive_line
from tests.helpers import plant_note as plant

ADA = Actor("user", "ada-admin", role="admin")
pytestmark = pytest.mark.django_db


def _stored_plan(kind, plan, params=None, stats=None):
    """A finished dry run whose plan is ``plan``, JSON as a run stored it."""
    return Run.objects.create(
        kind=kind,
        started_by=ADA.label,
        dry_run=True,
        status=Run.DONE,
        params=params or {},
        stats=stats or {},
        plan=plan,
    )


def _apply(dry):
    run = job_apply_plan(actor=ADA, run_id=dry.pk)
    job_run(run=run)
    run.refresh_from_db()
    return run


def _date(note_id):
    """The note's ``updated_at`` as a stored plan's guard has it."""
    return {"$date": notes_store().get_full_note(note_id)["updated_at"].isoformat()}


def test_a_stored_archival_plan_archives_its_unchanged_notes_and_skips_a_changed_one(stores):
    plant("note_0000000000a1", 0.01, 300)
    plant("note_0000000000a2", 0.01, 300)
    plan = [
        {
            "note_id": note_id,
            "text": "what it said",
            "before": "effective importance 0.010",
            "after": "archived",
            "guard": {"updated_at": _date(note_id), "value": 0.0104},
        }
        for note_id in ("note_0000000000a1", "note_0000000000a2")
    ]
    dry = _stored_plan("archival", plan, {"threshold": 0.05})
    notes_store().update_importance("note_0000000000a2", 0.02)  # the agent, meanwhile
    run = _apply(dry)
    assert run.status == "done", run.error
    assert run.stats == {"planned": 2, "archived": 1, "changed_since_plan": 1, "gone": 0}
    assert notes_store().get_full_note("note_0000000000a1") is None
    archived = {n.note_id: n for n in archive_manager().read().notes}
    assert archived["note_0000000000a1"].reason == "importance_decay_0.010"


def test_a_stored_decay_plan_writes_its_values_and_its_undo_puts_the_old_ones_back(stores):
    plant("note_0000000000a1", 0.9, 100)
    plan = [
        {
            "note_id": "note_0000000000a1",
            "text": "",
            "before": "0.900",
            "after": "0.500",
            "guard": {
                "expected": 0.9,
                "base": 0.9,
                "new": 0.5,
                "prev": {
                    "importance": 0.9,
                    "updated_at": _date("note_0000000000a1"),
                    "qqweb_base_importance": None,
                    "qqweb_decayed_importance": None,
                },
            },
        }
    ]
    run = _apply(_stored_plan("decay", plan))
    assert run.stats == {"planned": 1, "written": 1, "changed_since_plan": 0, "gone": 0}
    assert notes_store().get_full_note("note_0000000000a1")["importance"] == 0.5
    batch_undo(actor=ADA, batch_id=run.batch_id)  # the audit event kept the planned "prev"
    assert notes_store().get_full_note("note_0000000000a1")["importance"] == 0.9


def test_a_stored_purge_plan_drops_exactly_its_line(stores):
    old, recent = (
        agent_archive_line("note_0000000000b1", 200),
        agent_archive_line("note_0000000000b2", 200),
    )
    archive_manager().append_entries([old, recent])
    plan = [
        {
            "note_id": "note_0000000000b1",
            "text": "what note_0000000000b1 said",
            "before": "archived long ago (low_importance)",
            "after": "dropped from archive.jsonl",
            "guard": {"entry": old},
        }
    ]
    run = _apply(_stored_plan("archive_purge", plan, {"days": 90}))
    assert run.stats == {"planned": 1, "dropped": 1, "changed_since_plan": 0, "gone": 0}
    assert {n.note_id for n in archive_manager().read().notes} == {"note_0000000000b2"}


def test_a_stored_consolidation_plan_merges_its_pair_and_lists_it_unchanged(stores, admin_client_):
    a = plant("note_0000000000c1", 0.9, 10)
    plant("note_0000000000c2", 0.5, 10, embedding=a["embedding"], content=a["content"])
    item = {
        "note_id": "note_0000000000c1",
        "other_id": "note_0000000000c2",
        "text": a["content"],
        "other_text": a["content"],
        "before": "two notes, similarity 1.000",
        "after": "merged into one",
        "guard": {
            "similarity": 1.0,
            "updated_at": {i: _date(i) for i in ("note_0000000000c1", "note_0000000000c2")},
        },
    }
    dry = _stored_plan(
        "auto_consolidation", [item], {"threshold": 0.99}, {"of_notes": 2, "left": []}
    )
    body = admin_client_.get(f"/api/maintenance/runs/{dry.pk}/plan").json()
    assert body["items"] == [{k: v for k, v in item.items() if k != "guard"}]
    run = _apply(dry)
    assert run.stats["planned"] == 1 and run.stats["merged"] == 1, run.stats
    assert run.stats["left_for_review"] == 0 and run.stats["errors"] == []
    assert notes_store().count() == 1


@pytest.mark.parametrize(
    ("kind", "params"),
    [
        ("archival", {"threshold": 0.05}),
        ("decay", {}),
        ("auto_consolidation", {"force": True, "threshold": 0.99}),
    ],
)
def test_a_dry_runs_plan_reads_back_to_the_same_json(stores, kind, params):
    a = plant("note_0000000000d1", 0.01, 300)
    plant("note_0000000000d2", 0.01, 300, embedding=a["embedding"], content=a["content"])
    dry = job_create(kind=kind, actor=ADA, dry_run=True, params=params)
    job_run(run=dry)
    dry.refresh_from_db()
    assert dry.plan, dry.stats
    assert plan_to_json(plan_from_json(kind, dry.plan)) == dry.plan
