"""The dedup scan started from the page runs in the real Celery worker, with progress."""

import time

import pytest
from django.urls import reverse

from memory_app.notes.models import ReviewPair
from memory_app.notes.stores import notes_store
from qqweb.jobs.models import Run
from qqweb.lib.embeddings import HashingEmbedder

EMB = HashingEmbedder(384)


@pytest.mark.django_db(transaction=True)
def test_the_scan_button_fills_the_queue_through_the_worker(celery_worker, settings, admin_client_):
    settings.QQ_MONGO_DB = celery_worker["QQ_MONGO_DB"]  # the database the worker reads
    store = notes_store()
    store.clear_all()
    for note_id, text in [
        ("note_0000000000a1", "Lumen uses MongoDB for vector search now"),
        ("note_0000000000a2", "Lumen uses MongoDB for vector search now!"),
        ("note_0000000000a3", "Priya reviews pull requests on Fridays"),
    ]:
        store.upsert_note(note_id, text, [float(x) for x in EMB.embed([text])[0]], "Key Topics")
    response = admin_client_.post(reverse("memory_app:review_scan"), {"threshold": "0.9"})
    assert 'id="scan-progress"' in response.content.decode()
    run = Run.objects.get()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if run.status in ("done", "failed"):
            break
        time.sleep(0.3)
    assert run.status == "done", run.error
    assert run.stats["queued"] == 1 and run.processed == run.total == 1
    assert ReviewPair.objects.get().note_b == "note_0000000000a2"
    progress = admin_client_.get(reverse("memory_app:review_scan_progress", args=[run.pk]))
    assert "<strong>done</strong>" in progress.content.decode()
    store.clear_all()
