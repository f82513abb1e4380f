"""A worker killed in the middle of a run: another worker picks the run up and finishes
it, with nothing lost and nothing done twice."""

import json
import os
import signal
import time
from datetime import timedelta

import pytest

from memory_app.notes.lib.mongo_store import utcnow_naive
from memory_app.notes.stores import notes_store
from qqweb.jobs.models import Run
from qqweb.jobs.runner import job_create
from qqweb.jobs.tasks import run_job_task
from qqweb.lib.actors import Actor
from tests.services import start_celery_worker, stop

NOTES = 300


@pytest.mark.django_db(transaction=True)
def test_a_killed_worker_leaves_a_run_another_worker_completes(celery_worker, settings, tmp_path):
    # the task goes back to the queue 8 s after the doomed worker took it: later than the
    # rescuer's first sweep of unacked tasks at its start, as for any worker that was
    # running when another died (the sweeps after it find the task)
    env = {**celery_worker, "QQ_BROKER_VISIBILITY_TIMEOUT": "8"}
    settings.QQ_MONGO_DB = env["QQ_MONGO_DB"]
    settings.MEMORY_DIR = tmp_path / "crash-memory"
    settings.MEMORY_DIR.mkdir()
    env["MEMORY_DIR"] = str(settings.MEMORY_DIR)
    store = notes_store()
    store.clear_all()
    now = utcnow_naive()
    store.collection.insert_many(
        [
            {
                "note_id": f"note_{i:012x}",
                "content": f"stale note {i}",
                "embedding": [],
                "section": "Key Topics",
                "metadata": {},
                "importance": 0.01,
                "decay_rate": 0.01,
                "access_count": 0,
                "created_at": now - timedelta(days=300),
                "updated_at": now - timedelta(days=300),
                "last_accessed": None,
            }
            for i in range(NOTES)
        ]
    )

    first = start_celery_worker(env, tmp_path, queue="crash-test", name="doomed")
    run = job_create(kind="archival", actor=Actor("user", "ada-admin"))
    run_job_task.apply_async(args=[run.pk], queue="crash-test")
    # the run plans first (services/jobs/pins_first.py), then archives: killed once it
    # has archived some of the notes
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if store.count() <= NOTES - 50:
            break
        time.sleep(0.05)
    os.kill(first.pid, signal.SIGKILL)  # mid-run, no goodbye
    first.wait(10)
    run.refresh_from_db()
    assert run.status == "running" and 0 < store.count() <= NOTES - 50

    second = start_celery_worker(env, tmp_path, queue="crash-test", name="rescuer")
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            run.refresh_from_db()
            if run.status in ("done", "failed"):
                break
            time.sleep(0.3)
    finally:
        stop(second)
    assert run.status == "done", run.error
    assert store.count() == 0  # nothing left behind
    lines = [
        json.loads(x) for x in (settings.MEMORY_DIR / "archive.jsonl").read_text().splitlines()
    ]
    ids = [line["note_id"] for line in lines]
    assert len(ids) == NOTES and len(set(ids)) == NOTES  # nothing lost, nothing twice
    assert Run.objects.get(pk=run.pk).finished_at is not None
