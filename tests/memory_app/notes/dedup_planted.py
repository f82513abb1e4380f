"""The notes the incremental dedup scan tests plant (test_dedup_incremental_changed.py,
test_dedup_incremental_vectors.py): N clustered notes exactly as the agent writes them,
TWINS of them near-copies of another, in the worker's database; and the scans started as
the Review page starts them, run by the real worker. ``planted`` reaches the tests through
this folder's conftest.py."""

import time
from datetime import timedelta

import numpy as np
import pytest

from memory_app.notes.lib.dedup import blocks as dedup_blocks
from memory_app.notes.lib.documents import utcnow_naive
from memory_app.notes.models import ReviewPair
from memory_app.notes.stores import notes_store
from qqweb.jobs.models import Run
from qqweb.jobs.starting import job_start
from qqweb.lib.actors import Actor

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
