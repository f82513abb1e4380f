"""The incremental dedup scan (only the notes changed since the last complete scan, each
against every note), with the real worker: which notes count as changed, what marks the
last complete scan, and when a scan is full instead."""

from datetime import timedelta

import pytest
from django.urls import reverse

from memory_app.notes.lib.documents import utcnow_naive
from memory_app.notes.models import ReviewPair
from memory_app.notes.services import review_verdict
from memory_app.notes.services.dedup_scan import last_complete_scan
from qqweb.jobs.models import Run
from qqweb.jobs.runner import job_create, job_run
from qqweb.jobs.runs import run_cancel
from qqweb.lib.actors import Actor
from tests.memory_app.notes.dedup_planted import (
    ADA,
    TWINS,
    N,
    _agent_adds_near_copy_of,
    _agent_doc,
    _queued,
    _scan,
    _wait,
)


@pytest.mark.django_db(transaction=True)
def test_the_first_scan_is_full_and_the_next_compares_only_the_note_the_agent_added(planted):
    store, vectors, twins = planted
    first = _scan()
    assert first.stats["scan"] == "full"
    assert first.stats["full_because"] == "no complete scan at this threshold or lower yet"
    assert _queued() == twins

    _agent_adds_near_copy_of(store, vectors, 40, "note_aaaaaaaaaaaa")  # note 40 has no twin
    second = _scan()
    assert second.stats["scan"] == "incremental"
    assert second.stats["changed_since_run"] == first.pk
    assert second.stats["changed_notes"] == 1
    assert second.stats["notes"] == N + 1
    assert second.stats["compared"] == f"1 changed note against {N + 1:,}"
    assert second.stats["pairs_found"] == 1
    assert second.stats["queued"] == 1
    assert _queued() == twins | {(f"note_{40:012x}", "note_aaaaaaaaaaaa")}


def _started_by(response) -> Run:
    """The scan the Review page's POST started: the newest one (its partial names it, but
    the test client only captures a context when a template file is rendered)."""
    assert response.status_code == 200
    return Run.objects.filter(kind="dedup_scan").latest("pk")


@pytest.mark.django_db(transaction=True)
def test_the_review_page_scan_is_incremental_and_says_what_it_compared(planted, admin_client_):
    store, vectors, _ = planted
    _scan()
    _agent_adds_near_copy_of(store, vectors, 41, "note_bbbbbbbbbbbb")
    response = admin_client_.post(reverse("memory_app:review_scan"), {"threshold": "0.85"})
    assert response.status_code == 200
    run = _wait(_started_by(response))
    assert run.stats["scan"] == "incremental"
    page = admin_client_.get(reverse("memory_app:review")).content.decode()
    assert f"incremental scan: 1 changed note against {N + 1:,}" in page, (
        run.stats,
        [line for line in page.splitlines() if "scan" in line],
    )
    assert 'name="full"' in page  # the curator can still ask for a full scan


@pytest.mark.django_db(transaction=True)
def test_a_full_scan_asked_for_compares_every_note(planted, admin_client_):
    _scan()
    response = admin_client_.post(
        reverse("memory_app:review_scan"), {"threshold": "0.85", "full": "1"}
    )
    run = _wait(_started_by(response))
    assert run.params["full"] is True
    assert run.stats["scan"] == "full"
    assert run.stats["full_because"] == "asked"
    assert run.stats["compared"] == f"{N:,} notes, each against every other"
    assert run.stats["already_queued"] == TWINS  # found again, not doubled
    assert ReviewPair.objects.count() == TWINS


@pytest.mark.django_db(transaction=True)
def test_a_dismissed_pair_is_not_offered_again_when_one_of_its_notes_changes(planted):
    store, _, twins = planted
    _scan()
    dismissed = ReviewPair.objects.get(note_a=f"note_{0:012x}")
    review_verdict(actor=Actor.job("test"), pair_id=dismissed.pk, verdict="not_duplicate")
    pending = ReviewPair.objects.get(note_a=f"note_{1:012x}")
    # the agent raises an importance of a note of each pair (updated_at is rewritten)
    for note_id in (dismissed.note_b, pending.note_b):
        store.collection.update_one(
            {"note_id": note_id}, {"$set": {"importance": 0.9, "updated_at": utcnow_naive()}}
        )
    run = _scan()
    assert run.stats["scan"] == "incremental"
    assert run.stats["changed_notes"] == 2
    assert run.stats["pairs_found"] == 2
    assert run.stats["kept_rejected"] == 1
    assert run.stats["already_queued"] == 1
    assert run.stats["queued"] == 0
    dismissed.refresh_from_db()
    assert dismissed.status == ReviewPair.REJECTED
    assert ReviewPair.objects.count() == len(twins)


@pytest.mark.django_db(transaction=True)
def test_a_complete_scan_at_a_higher_threshold_is_no_mark_for_a_lower_one(planted):
    _scan(threshold=0.95)
    assert last_complete_scan(threshold=0.85) is None
    run = _scan(threshold=0.85)
    assert run.stats["scan"] == "full"


@pytest.mark.django_db(transaction=True)
def test_a_cancelled_or_failed_scan_does_not_move_the_last_complete_scan(
    planted, settings, tmp_path
):
    store, vectors, _ = planted
    complete = _scan()
    _agent_adds_near_copy_of(store, vectors, 42, "note_cccccccccccc")

    cancelled = job_create(kind="dedup_scan", actor=Actor.job("test"), params={"threshold": 0.85})

    def cancel_at_once(done, total):
        run_cancel(actor=Actor.job("test"), run_id=cancelled.pk)

    job_run(run=cancelled, on_progress=cancel_at_once)
    cancelled.refresh_from_db()
    assert cancelled.status == Run.CANCELLED

    settings.QQ_DEDUP_SCAN_DIR = tmp_path / "a-file"  # the scan cannot write its blocks
    (tmp_path / "a-file").write_text("not a folder")
    failed = job_create(kind="dedup_scan", actor=Actor.job("test"), params={"threshold": 0.85})
    with pytest.raises(OSError):
        job_run(run=failed)
    failed.refresh_from_db()
    assert failed.status == Run.FAILED

    assert last_complete_scan(threshold=0.85) == complete
    settings.QQ_DEDUP_SCAN_DIR = tmp_path / "scans"
    run = job_create(kind="dedup_scan", actor=Actor.job("test"), params={"threshold": 0.85})
    stats = job_run(run=run)
    assert stats["changed_since_run"] == complete.pk
    assert stats["changed_notes"] == 1
    assert (f"note_{42:012x}", "note_cccccccccccc") in _queued()


@pytest.mark.django_db(transaction=True)
def test_a_note_put_back_by_an_undone_merge_is_compared_again(planted, settings):
    """The undo reinserts the merged-away note exactly, with its old ``updated_at``: the
    next incremental scan still compares it (qqweb marks what it inserted)."""
    from qqweb.audit.services import audit_undo

    store, vectors, _ = planted
    _scan()
    pair = ReviewPair.objects.get(note_a=f"note_{2:012x}")
    secondary = pair.note_b
    merged = review_verdict(actor=ADA, pair_id=pair.pk, verdict="merge", primary_id=pair.note_a)
    assert store.get_full_note(secondary) is None
    # the agent writes a near copy of the merged-away note's vector
    store.collection.insert_one(
        _agent_doc("note_dddddddddddd", "near the gone one", vectors[N - 1 - 2], utcnow_naive())
    )
    _scan()
    audit_undo(actor=ADA, event_id=merged.event_id)
    back = store.get_full_note(secondary)
    assert back is not None and back["updated_at"] < utcnow_naive() - timedelta(minutes=30)
    # no clock margin, so the near copy counts as compared by the scan before the undo
    settings.QQ_DEDUP_CLOCK_MARGIN_S = 0
    run = job_create(kind="dedup_scan", actor=Actor.job("test"), params={"threshold": 0.85})
    stats = job_run(run=run)  # the coordinator here (with the setting), blocks in the worker
    assert stats["scan"] == "incremental"
    assert stats["changed_notes"] == 2  # the note put back and the primary it left
    assert (secondary, "note_dddddddddddd") in _queued()


@pytest.mark.django_db(transaction=True)
def test_a_scan_after_most_notes_changed_is_full(planted):
    store, _, twins = planted
    complete = _scan()
    store.collection.update_many({}, {"$set": {"updated_at": utcnow_naive()}})  # re-embedded
    run = _scan()
    assert run.stats["scan"] == "full"
    assert run.stats["full_because"] == f"more than half the notes changed since run {complete.pk}"
    assert run.stats["already_queued"] == len(twins)
