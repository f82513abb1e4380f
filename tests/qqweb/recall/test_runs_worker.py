"""A memory tests run is a job in the real Celery worker (qqweb/recall/jobs.py): the
request that starts it answers at once, whatever the number of pins, and the run's
progress, page and result come from the worker."""

from __future__ import annotations

import json
import time

import pytest
from django.urls import reverse

from memory_app.notes.stores import notes_store
from qqweb.jobs.models import Run
from qqweb.recall.models import Pin, TestRun
from tests.helpers import plant_note

BASE = "/api/memory-tests"
PINS = 100


def wait_for(run_id: int, seconds: float = 120) -> Run:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        run = Run.objects.get(pk=run_id)
        if run.status in Run.CLOSED:
            return run
        time.sleep(0.3)
    raise AssertionError(f"run {run_id} still {run.status}")


@pytest.fixture
def worker_notes(celery_worker, settings):
    """Notes planted where the worker reads them."""
    settings.QQ_MONGO_DB = celery_worker["QQ_MONGO_DB"]
    notes_store().clear_all()
    yield
    notes_store().clear_all()


@pytest.mark.django_db(transaction=True)
def test_a_run_of_many_imported_pins_is_a_job_the_worker_runs_and_the_pages_show(
    worker_notes, curator_client
):
    lines = []
    for i in range(PINS):
        note_id = f"note_{i:012d}"
        plant_note(note_id, content=f"Fact number {i} about the pantry shelf {i}")
        lines.append(json.dumps({"query": f"pantry shelf {i}", "item_id": note_id}))
    imported = curator_client.post(
        f"{BASE}/imports", json.dumps({"jsonl": "\n".join(lines)}), content_type="application/json"
    )
    assert imported.status_code == 201 and len(imported.json()["created"]) == PINS

    started = curator_client.post(f"{BASE}/runs")
    assert started.status_code == 202
    job = started.json()
    assert job["status"] == "queued" and job["poll"] == f"{BASE}/jobs/{job['id']}"

    page = curator_client.get(reverse("recall:memory_tests")).content.decode()
    assert f'data-job-id="{job["id"]}"' in page and "Running the memory tests" in page

    run = wait_for(job["id"])
    assert run.status == "done", run.error
    assert (run.processed, run.total) == (PINS, PINS)
    polled = curator_client.get(job["poll"]).json()
    stored = TestRun.objects.get(pk=polled["test_run"])
    assert (stored.total, stored.trigger, stored.actor) == (PINS, "api", "user:cora-curator")
    assert stored.results.count() == Pin.objects.count() == PINS

    page = curator_client.get(reverse("recall:memory_tests")).content.decode()
    assert "Running the memory tests" not in page
    assert f"all {PINS} pass" in page or f"of {PINS} fail" in page
    run_page = curator_client.get(job["url"]).content.decode()
    assert f'href="/memory-tests/runs/{stored.pk}/" id="run-memory-tests"' in run_page
    jobs_page = curator_client.get(reverse("memory_app:maintenance")).content.decode()
    assert f"/maintenance/runs/{run.pk}/" in jobs_page
