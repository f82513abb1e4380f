"""Auto-consolidation merges, unattended, only copies (the pair analysis'
``unattended_merge``): a pair whose texts differ in a port, a date, a name ..., or
contradict each other, is left for review (queued, and listed on the run's page with the
reason), however similar; so is a rewording, unless the run asks for merge='unflagged'."""

import math

import pytest
from django.urls import reverse

from memory_app.notes.models import ReviewPair
from memory_app.notes.stores import notes_store
from qqweb.jobs.runner import job_apply_plan, job_create, job_run
from qqweb.lib.actors import Actor
from tests.helpers import plant_note as plant
from tests.helpers import vector

ADA = Actor("user", "ada-admin")
pytestmark = pytest.mark.django_db

PORT_OLD = "The API listens on port 9000."
PORT_NEW = "The API listens on port 9100."
DUPLICATE = "Ada prefers dark mode in the editor."
BACKUPS = "Backups run every night."
NO_BACKUPS = "Backups do not run every night."
STORES = "Lumen stores its notes in MongoDB."
KEEPS = "Lumen keeps its notes in MongoDB."


def _plant_pairs():
    """A flagged pair (the port changed) and a true duplicate, each pair planted with one
    vector, as the agent's embedder gives two texts this close (similarity 1.0)."""
    port = vector(PORT_OLD)
    plant("note_00000000port1", 0.6, 20, embedding=port, content=PORT_OLD)
    plant("note_00000000port2", 0.6, 2, embedding=port, content=PORT_NEW)
    dark = vector(DUPLICATE)
    plant("note_00000000dark1", 0.7, 10, embedding=dark, content=DUPLICATE)
    plant("note_00000000dark2", 0.5, 5, embedding=dark, content=DUPLICATE.rstrip("."))


def _run(dry_run=False, **params):
    run = job_create(
        kind="auto_consolidation", actor=ADA, dry_run=dry_run, params={"force": True, **params}
    )
    job_run(run=run)
    run.refresh_from_db()
    return run


def test_a_pair_whose_port_changed_is_left_for_review_and_a_true_duplicate_is_merged(
    admin_client_, stores
):
    _plant_pairs()
    run = _run()
    assert run.status == "done", run.error
    assert run.stats["merged"] == 1 and run.stats["left_for_review"] == 1
    store = notes_store()
    assert store.get_full_note("note_00000000port1")["content"] == PORT_OLD
    assert store.get_full_note("note_00000000port2")["content"] == PORT_NEW
    gone = [store.get_full_note(i) is None for i in ("note_00000000dark1", "note_00000000dark2")]
    assert gone.count(True) == 1
    assert store.count() == 3
    [left] = run.stats["left"]
    assert {left["note_id"], left["other_id"]} == {"note_00000000port1", "note_00000000port2"}
    assert left["reason"] == "possible update: the texts differ in an id (port 9000 / port 9100)"
    queued = ReviewPair.objects.get()
    assert (queued.note_a, queued.note_b, queued.status) == (
        "note_00000000port1",
        "note_00000000port2",
        ReviewPair.PENDING,
    )
    page = admin_client_.get(reverse("memory_app:maintenance_run", args=[run.pk])).content.decode()
    table = page.split('id="run-left"')[1].split("</table>")[0]
    assert "Left for review" in table and "1 pair not merged, and why" in table
    assert "note_00000000port1" in table and "port 9000 / port 9100" in table
    assert "note_00000000dark1" not in table


def test_the_preview_plans_only_the_duplicate_and_applying_it_queues_the_flagged_pair(
    admin_client_, stores
):
    _plant_pairs()
    dry = _run(dry_run=True)
    assert [(i["note_id"], i["other_id"]) for i in dry.plan] == [
        ("note_00000000dark1", "note_00000000dark2")
    ]
    assert notes_store().count() == 4 and not ReviewPair.objects.exists()
    page = admin_client_.get(reverse("memory_app:maintenance_run", args=[dry.pk])).content.decode()
    assert "port 9000 / port 9100" in page.split('id="run-left"')[1]
    applied = job_apply_plan(actor=ADA, run_id=dry.pk)
    job_run(run=applied)
    applied.refresh_from_db()
    assert applied.stats["merged"] == 1 and applied.stats["left_for_review"] == 1
    assert notes_store().count() == 3
    assert ReviewPair.objects.filter(status=ReviewPair.PENDING).count() == 1


def test_the_default_threshold_is_095_whatever_the_review_queues_is(stores, settings):
    settings.QQ_DEDUP_THRESHOLD = 0.85
    first = vector(DUPLICATE)
    other = vector("Grafana dashboards refresh every morning.")
    dot = sum(x * y for x, y in zip(first, other, strict=True))
    ortho = [y - dot * x for x, y in zip(first, other, strict=True)]
    norm = math.sqrt(sum(y * y for y in ortho))
    # 0.9 similar to the first: a review queue pair, not one to merge unattended
    close = [0.9 * x + math.sqrt(1 - 0.81) * y / norm for x, y in zip(first, ortho, strict=True)]
    plant("note_00000000dark1", 0.7, 10, embedding=first, content=DUPLICATE)
    plant("note_00000000dark2", 0.5, 5, embedding=close, content=DUPLICATE.rstrip("."))
    run = _run()
    assert run.params["threshold"] == 0.95
    assert run.stats["pairs_found"] == 0 and run.stats["merged"] == 0
    assert notes_store().count() == 2


def test_a_contradiction_and_a_rewording_are_left_and_unflagged_merges_the_rewording(stores):
    backups = vector(BACKUPS)
    plant("note_000000000bak1", 0.6, 20, embedding=backups, content=BACKUPS)
    plant("note_000000000bak2", 0.6, 2, embedding=backups, content=NO_BACKUPS)
    lumen = vector(STORES)
    plant("note_0000000lumen1", 0.6, 20, embedding=lumen, content=STORES)
    plant("note_0000000lumen2", 0.5, 2, embedding=lumen, content=KEEPS)
    run = _run()
    assert run.stats["merged"] == 0 and notes_store().count() == 4
    reasons = {row["note_id"]: row["reason"] for row in run.stats["left"]}
    assert reasons["note_000000000bak1"].startswith("contradiction: the texts differ in a negation")
    assert reasons["note_0000000lumen1"].startswith("not a copy: the texts are worded differently")
    rewordings = _run(merge="unflagged")
    assert rewordings.stats["merged"] == 1 and rewordings.stats["left_for_review"] == 1
    assert notes_store().get_full_note("note_000000000bak2")["content"] == NO_BACKUPS
    assert notes_store().count() == 3


def test_an_edit_that_keeps_a_copys_words_but_turns_the_fact_around_is_left_for_review(stores):
    """ "has visited" / "has yet to visit": the same content words in the same order, so the
    copies test alone would merge it; the pair judge calls it a contradiction."""
    visited = vector("Tom has visited Paris.")
    plant("note_00000000tom01", 0.6, 20, embedding=visited, content="Tom has visited Paris.")
    plant("note_00000000tom02", 0.6, 2, embedding=visited, content="Tom has yet to visit Paris.")
    children = vector("Ada has children")
    plant("note_00000000ada01", 0.6, 20, embedding=children, content="Ada has children")
    plant("note_00000000ada02", 0.6, 2, embedding=children, content="Ada is childless")
    run = _run()
    assert run.stats["merged"] == 0 and notes_store().count() == 4
    reasons = {row["note_id"]: row["reason"] for row in run.stats["left"]}
    assert reasons["note_00000000tom01"].startswith(
        "not a copy, says the pair judge: contradiction"
    )
    assert reasons["note_00000000ada01"].startswith("not a copy, says the pair judge")
