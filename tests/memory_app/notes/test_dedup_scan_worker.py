"""The full dedup scan split into blocks that every worker shares, with the real worker."""

import os
import time

import numpy as np
import pytest

from memory_app.notes.lib.dedup import blocks as dedup_blocks
from memory_app.notes.lib.dedup.deduplicator import NoteDeduplicator
from memory_app.notes.models import ReviewPair
from memory_app.notes.services.dedup_scan import scan_queue
from memory_app.notes.stores import notes_store
from memory_app.notes.tasks import dedup_block_task
from qqweb.jobs.models import Run
from qqweb.jobs.runner import job_create, job_run
from qqweb.jobs.runs import run_cancel
from qqweb.lib.actors import Actor

N = 240
TWINS = 12


def _plant(store) -> set[tuple[str, str]]:
    """N clustered notes, TWINS of them near-copies of another; the planted pairs."""
    rng = np.random.default_rng(7)
    centres = rng.normal(size=(8, 384))
    vectors = centres[rng.integers(0, 8, N)] + rng.normal(scale=1.2, size=(N, 384))
    planted = set()
    for k in range(TWINS):
        vectors[N - 1 - k] = vectors[k] + rng.normal(scale=0.05, size=384)
        planted.add((f"note_{k:012x}", f"note_{N - 1 - k:012x}"))
    store.clear_all()
    for i, row in enumerate(vectors):
        store.upsert_note(f"note_{i:012x}", f"note {i}", [float(x) for x in row], "Key Topics")
    return planted


@pytest.fixture
def planted(celery_worker, settings, monkeypatch):
    settings.QQ_MONGO_DB = celery_worker["QQ_MONGO_DB"]  # the database the worker reads
    monkeypatch.setattr(dedup_blocks, "PAIRS_PER_BLOCK", 2_000)  # ~15 blocks of 240 notes
    store = notes_store()
    pairs = _plant(store)
    yield store, pairs
    store.clear_all()


def _single_process(store, threshold=0.85):
    return {(a, b) for a, b, _ in NoteDeduplicator(store).find_similar_ids(threshold)}


def _wait(run, seconds=90):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if run.status in Run.CLOSED:
            return run
        time.sleep(0.3)
    raise AssertionError(f"run {run.pk} still {run.status}")


@pytest.mark.django_db(transaction=True)
def test_a_scan_in_blocks_queues_exactly_the_pairs_the_single_process_scan_finds(planted):
    store, twins = planted
    expected = _single_process(store)
    assert twins <= expected
    run = job_create(kind="dedup_scan", actor=Actor.job("test"), params={"threshold": 0.85})
    stats = job_run(run=run)
    assert stats["blocks"] > 5
    queued = {(p.note_a, p.note_b) for p in ReviewPair.objects.all()}
    assert queued == expected
    assert stats["queued"] == len(expected)
    assert not scan_queue(run.pk).path.exists()  # the scan's files are removed


@pytest.mark.django_db(transaction=True)
def test_a_block_task_in_the_worker_computes_the_blocks_and_its_pairs_equal_the_scan(planted):
    store, _ = planted
    run = job_create(kind="dedup_scan", actor=Actor.job("test"), params={"threshold": 0.85})
    Run.objects.filter(pk=run.pk).update(status=Run.RUNNING)
    queue = scan_queue(run.pk)
    total = queue.prepare(store.vectors_by_dimension(), 0.85, per_block=2_000)
    try:
        assert dedup_block_task.delay(run.pk).get(timeout=60) == total
        assert {(a, b) for a, b, _ in queue.pairs()} == _single_process(store)
    finally:
        queue.remove()


@pytest.mark.django_db(transaction=True)
def test_a_block_computed_again_after_a_crash_does_not_double_its_pairs(planted):
    store, _ = planted
    run = job_create(kind="dedup_scan", actor=Actor.job("test"), params={"threshold": 0.85})
    Run.objects.filter(pk=run.pk).update(status=Run.RUNNING)
    queue = scan_queue(run.pk)
    queue.prepare(store.vectors_by_dimension(), 0.85, per_block=2_000)
    try:
        blocks = list(queue.blocks())
        # a worker claimed the first block and died before writing it (its claim is old)
        assert queue.claim(blocks[0])
        claim = queue.path / blocks[0].group / "claims" / str(blocks[0].index)
        os.utime(claim, (time.time() - 3600, time.time() - 3600))
        # another wrote the second block, then died before its task was acknowledged:
        # the redelivered task computes it again
        queue.compute(blocks[1])
        assert dedup_block_task.delay(run.pk).get(timeout=60) == len(blocks) - 1
        queue.compute(blocks[1])
        rows = queue.pairs()
        assert len(rows) == len({(a, b) for a, b, _ in rows})
        assert {(a, b) for a, b, _ in rows} == _single_process(store)
    finally:
        queue.remove()


@pytest.mark.django_db(transaction=True)
def test_cancel_stops_the_remaining_blocks_and_queues_nothing(planted):
    run = job_create(kind="dedup_scan", actor=Actor.job("test"), params={"threshold": 0.85})
    seen = []

    def cancel_after_two_blocks(done, total):
        seen.append((done, total))
        if done >= 2:
            run_cancel(actor=Actor.job("test"), run_id=run.pk)

    job_run(run=run, on_progress=cancel_after_two_blocks)
    run.refresh_from_db()
    assert run.status == Run.CANCELLED
    done, total = seen[-1]
    assert done < total
    assert not scan_queue(run.pk).path.exists()
    assert not ReviewPair.objects.exists()
    # a block task that reaches a worker afterwards computes nothing
    assert dedup_block_task.delay(run.pk).get(timeout=60) == 0


@pytest.mark.django_db(transaction=True)
def test_the_pruned_scan_finds_the_planted_duplicate_pairs(planted, settings):
    store, twins = planted
    settings.QQ_DEDUP_EXACT_BELOW = 0  # prune whatever the size
    run = job_create(kind="dedup_scan", actor=Actor.job("test"), params={"threshold": 0.85})
    job_run(run=run)
    queued = {(p.note_a, p.note_b) for p in ReviewPair.objects.all()}
    assert twins <= queued
    assert queued <= _single_process(store)


@pytest.mark.django_db(transaction=True)
def test_the_scan_started_in_the_worker_fills_the_queue(planted):
    store, _ = planted
    from qqweb.jobs.starting import job_start

    run = _wait(job_start(kind="dedup_scan", actor=Actor.job("test"), params={"threshold": 0.85}))
    assert run.status == Run.DONE, run.error
    assert {(p.note_a, p.note_b) for p in ReviewPair.objects.all()} == _single_process(store)
