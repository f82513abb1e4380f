"""The incremental and full dedup scans with the real worker: where they read the vectors
(the vector index's snapshot, or MongoDB for what the snapshot lacks or when there is
none), and that either way they find the pairs MongoDB holds."""

from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest

from memory_app.notes.lib.documents import utcnow_naive
from memory_app.notes.lib.replica.state import build_snapshot
from memory_app.notes.models import ReviewPair
from qqweb.jobs.runner import job_create, job_run
from qqweb.lib.actors import Actor
from tests.helpers import read_model_caught_up
from tests.memory_app.notes.dedup_planted import (
    DIM,
    N,
    _agent_adds_near_copy_of,
    _agent_doc,
    _queued,
    _scan,
)


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
