"""The incremental dedup scan (only the notes changed since the last complete scan, each
against every note), with the real worker."""

import time
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest
from django.urls import reverse

from memory_app.notes.lib.dedup import blocks as dedup_blocks
from memory_app.notes.lib.documents import utcnow_naive
from memory_app.notes.lib.replica.state import build_snapshot
from memory_app.notes.models import ReviewPair
from memory_app.notes.services import review_verdict
from memory_app.notes.services.dedup_scan import last_complete_scan
from memory_app.notes.stores import notes_store
from qqweb.jobs.models import Run
from qqweb.jobs.runner import job_create, job_run
from qqweb.jobs.runs import run_cancel
from qqweb.jobs.starting import job_start
from qqweb.lib.actors import Actor
from tests.helpers import read_model_caught_up

N = 240
TWINS = 12
DIM = 384
ADA = Actor("user", "ada-admin", role="admin")


def _agent_doc(note_id: str, content: str, vector: np.ndarray, at) -> dict:
    """A note exactly as the agent writes it (written at ``at``)."""
    return {
        "note_id": note_id,
        "content": content,
        "embedding": [float(x) for x in vector],
        "section": "Key Topics",
        "metadata": {},
        "importance": 0.5,
        "decay_rate": 0.01,
        "access_count": 0,
        "created_at": at,
        "updated_at": at,
        "last_accessed": None,
    }


@pytest.fixture
def planted(celery_worker, settings, monkeypatch):
    """N clustered notes the agent wrote an hour ago, TWINS of them near-copies of
    another; the store, the vectors and the planted pairs."""
    settings.QQ_MONGO_DB = celery_worker["QQ_MONGO_DB"]  # the database the worker reads
    # several blocks, shared with the worker
    monkeypatch.setattr(dedup_blocks, "PAIRS_PER_BLOCK", 2_000)
    rng = np.random.default_rng(11)
    centres = rng.normal(size=(8, DIM))
    vectors = centres[rng.integers(0, 8, N)] + rng.normal(scale=1.2, size=(N, DIM))
    pairs = set()
    for k in range(TWINS):
        vectors[N - 1 - k] = vectors[k] + rng.normal(scale=0.05, size=DIM)
        pairs.add((f"note_{k:012x}", f"note_{N - 1 - k:012x}"))
    store = notes_store()
    store.clear_all()
    hour_ago = utcnow_naive() - timedelta(hours=1)
    store.collection.insert_many(
        [_agent_doc(f"note_{i:012x}", f"note {i}", row, hour_ago) for i, row in enumerate(vectors)]
    )
    yield store, vectors, pairs
    store.clear_all()


def _wait(run, seconds=90):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if run.status in Run.CLOSED:
            assert run.status == Run.DONE, run.error
            return run
        time.sleep(0.3)
    raise AssertionError(f"run {run.pk} still {run.status}")


def _scan(**params):
    """A scan started as the Review page starts it, run by the worker."""
    return _wait(
        job_start(kind="dedup_scan", actor=Actor.job("test"), params={"threshold": 0.85, **params})
    )


def _queued() -> set[tuple[str, str]]:
    return {(p.note_a, p.note_b) for p in ReviewPair.objects.all()}


def _agent_adds_near_copy_of(store, vectors, k: int, note_id: str) -> None:
    rng = np.random.default_rng(k)
    near = vectors[k] + rng.normal(scale=0.05, size=DIM)
    store.collection.insert_one(_agent_doc(note_id, "a near copy", near, utcnow_naive()))


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


def _index_saves_a_snapshot(store, settings) -> None:
    """What the vector index does when it opens without one: every note's unit vector
    saved under QQ_VECTOR_DIR (the test process's own folder)."""
    root = Path(settings.QQ_VECTOR_DIR) / f"{settings.QQ_MONGO_DB}.{settings.QQ_MONGO_COLLECTION}"
    build_snapshot(store.vector_rows(), store.index_generation(), root, 20_000)


def _incremental_scan_here() -> dict:
    """The scan's coordinator in this process (with this test's settings); blocks shared
    with the worker."""
    run = job_create(kind="dedup_scan", actor=Actor.job("test"), params={"threshold": 0.85})
    return job_run(run=run)


@pytest.mark.django_db(transaction=True)
def test_an_incremental_scan_pairs_a_changed_note_with_an_unchanged_one_without_reading_every_note(
    planted, settings
):
    store, vectors, twins = planted
    _scan()
    _index_saves_a_snapshot(store, settings)
    _agent_adds_near_copy_of(store, vectors, 40, "note_eeeeeeeeeeee")
    # the agent re-embeds note 41 as a near copy of note 50: its row in the snapshot is stale
    near_50 = vectors[50] + np.random.default_rng(3).normal(scale=0.05, size=DIM)
    store.collection.update_one(
        {"note_id": f"note_{41:012x}"},
        {"$set": {"embedding": [float(x) for x in near_50], "updated_at": utcnow_naive()}},
    )
    stats = _incremental_scan_here()
    assert stats["scan"] == "incremental"
    assert stats["vectors_read_from"] == "vector index snapshot"
    assert stats["changed_notes"] == 2
    assert stats["notes"] == N + 1
    assert stats["pairs_found"] == 2
    assert _queued() == twins | {
        (f"note_{40:012x}", "note_eeeeeeeeeeee"),
        (f"note_{41:012x}", f"note_{50:012x}"),
    }


@pytest.mark.django_db(transaction=True)
def test_a_note_deleted_since_the_snapshot_is_never_proposed(planted, settings):
    store, vectors, _ = planted
    _scan()
    _agent_adds_near_copy_of(store, vectors, 40, "note_ffffffffffff")
    _index_saves_a_snapshot(store, settings)  # holds the near copy
    store.collection.delete_one({"note_id": "note_ffffffffffff"})  # the agent deletes it
    _agent_adds_near_copy_of(store, vectors, 40, "note_000000000fff")  # and writes another
    stats = _incremental_scan_here()
    assert stats["vectors_read_from"] == "vector index snapshot"
    assert stats["pairs_found"] == 1
    queued = _queued()
    assert (f"note_{40:012x}", "note_000000000fff") in queued
    assert not any("note_ffffffffffff" in pair for pair in queued)


@pytest.mark.django_db(transaction=True)
def test_the_scan_counts_only_the_notes_mongodb_holds_and_reads_those_the_snapshot_missed(
    planted, settings
):
    store, vectors, _ = planted
    _scan()
    _agent_adds_near_copy_of(store, vectors, 40, "note_eeeeeeeeeeee")  # the snapshot's newest
    _index_saves_a_snapshot(store, settings)
    # since the snapshot, the agent deletes a note written an hour ago and imports a near
    # copy of note 70 keeping its old date (neither is "changed" by its date), then writes
    # another near copy of note 70 now
    store.collection.delete_one({"note_id": f"note_{100:012x}"})
    near_70 = vectors[70] + np.random.default_rng(7).normal(scale=0.05, size=DIM)
    hour_ago = utcnow_naive() - timedelta(hours=1)
    store.collection.insert_one(_agent_doc("note_dddddddddddd", "imported", near_70, hour_ago))
    _agent_adds_near_copy_of(store, vectors, 70, "note_cccccccccccc")
    read_model_caught_up()
    stats = _incremental_scan_here()
    assert stats["vectors_read_from"] == "vector index snapshot"
    assert stats["notes"] == N + 2  # N, less the deleted one, plus the three new ones
    queued = _queued()
    assert (f"note_{70:012x}", "note_cccccccccccc") in queued
    assert ("note_cccccccccccc", "note_dddddddddddd") in queued  # the snapshot never held it
    assert not any(f"note_{100:012x}" in pair for pair in queued)


@pytest.mark.django_db(transaction=True)
def test_with_no_snapshot_the_incremental_scan_reads_every_vector_from_mongodb(planted, settings):
    store, vectors, _ = planted
    _scan()
    _agent_adds_near_copy_of(store, vectors, 40, "note_999999999999")
    stats = _incremental_scan_here()
    assert stats["scan"] == "incremental"
    assert stats["vectors_read_from"] == "MongoDB"
    assert (f"note_{40:012x}", "note_999999999999") in _queued()


@pytest.mark.django_db(transaction=True)
def test_notes_of_a_dimension_the_snapshot_lacks_are_still_compared(planted, settings):
    store, _, _ = planted
    _scan()
    _index_saves_a_snapshot(store, settings)  # 384-d only
    small = np.random.default_rng(8).normal(size=8)
    for note_id, vector in (("note_888888888881", small), ("note_888888888882", small * 1.01)):
        store.collection.insert_one(_agent_doc(note_id, "another model", vector, utcnow_naive()))
    stats = _incremental_scan_here()
    assert stats["scan"] == "incremental"
    assert stats["vectors_read_from"] == "MongoDB"
    assert ("note_888888888881", "note_888888888882") in _queued()


def _full_scan_here() -> dict:
    """A full scan's coordinator in this process (with this test's settings and vector
    index); blocks shared with the worker."""
    params = {"threshold": 0.85, "full": True}
    return job_run(run=job_create(kind="dedup_scan", actor=Actor.job("test"), params=params))


@pytest.mark.django_db(transaction=True)
def test_a_full_scan_takes_the_in_step_index_s_vectors_and_finds_what_mongodb_gives(
    planted, settings
):
    store, vectors, twins = planted
    assert store.vector_index.wait_caught_up(timeout=120)  # saves its snapshot
    # since the snapshot the agent adds a near copy of note 40 and deletes a twin
    _agent_adds_near_copy_of(store, vectors, 40, "note_eeeeeeeeeeee")
    store.collection.delete_one({"note_id": f"note_{N - 1:012x}"})
    expected = (twins - {(f"note_{0:012x}", f"note_{N - 1:012x}")}) | {
        (f"note_{40:012x}", "note_eeeeeeeeeeee")
    }

    from_index = _full_scan_here()
    assert from_index["scan"] == "full"
    assert from_index["vectors_read_from"] == "vector index snapshot"
    assert _queued() == expected

    ReviewPair.objects.all().delete()
    settings.QQ_DEDUP_FROM_SNAPSHOT = False
    from_mongo = _full_scan_here()
    assert from_mongo["vectors_read_from"] == "MongoDB"
    assert _queued() == expected
    assert from_index["pairs_found"] == from_mongo["pairs_found"] == len(expected)
    assert from_index["compared"] == from_mongo["compared"]
