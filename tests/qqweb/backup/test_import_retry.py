"""An import run stopped part-way by an outage is retried by the run task (Celery's
autoretry, or a redelivery after its worker died): the retry finishes what the first try
began, as one go would have, instead of judging the stores that try half filled."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from bson import ObjectId

from memory_app.facts.lib import FactsStore
from memory_app.notes.stores import notes_store
from qqweb.backup import importing
from qqweb.backup.exporting import backup_export
from qqweb.backup.services import backup_path, import_create
from qqweb.jobs.models import Run
from qqweb.jobs.runner import job_run
from qqweb.jobs.tasks import run_job_task
from qqweb.lib.actors import Actor
from qqweb.lib.errors import StoreUnavailable
from tests.helpers import plant_note

ADA = Actor("user", "ada-admin")
FILE = "export-retry-test.ndjson"
pytestmark = pytest.mark.django_db


def _fact(text: str, vector: list[float], days_ago: int) -> dict[str, Any]:
    when = (datetime.now(UTC) - timedelta(days=days_ago)).replace(tzinfo=None, microsecond=0)
    return {
        "_id": ObjectId(),
        "type": "fact",
        "content": text,
        "content_embedding": vector,
        "timestamp": when,
        "metadata": {},
    }


def _unit(*weights: float) -> list[float]:
    norm = sum(w * w for w in weights) ** 0.5
    return [w / norm for w in weights] + [0.0] * (384 - len(weights))


@pytest.fixture
def exported(stores, facts_store: FactsStore, settings, monkeypatch) -> list[dict[str, Any]]:
    """Five notes and a pending pair of facts (cosine >= 0.95: the agent's next start
    deletes the newer) exported, then gone from the stores; one record a batch, so an
    outage can stop the import between the two facts."""
    settings.QQ_BACKUP_DIR = stores["memory_dir"].parent / "backups"
    for i in range(5):
        plant_note(f"note_00000000000{i}")
    pair = [
        _fact("The TTS server listens on port 8000.", _unit(1.0), days_ago=30),
        _fact("The TTS server listens on port 8001.", _unit(1.0, 0.05), days_ago=1),
    ]
    facts_store.collection.insert_many([dict(f) for f in pair])
    path = backup_path(FILE)
    path.parent.mkdir(parents=True, exist_ok=True)
    backup_export(destination=path)
    notes_store().collection.delete_many({})
    facts_store.collection.delete_many({})
    monkeypatch.setattr(importing, "BATCH", 1)
    return pair


def _outage_after_the_first_fact(facts: FactsStore) -> Callable[[int, int | None], None]:
    """The first try's progress report: the store goes down once the first fact is in."""

    def report(done: int, total: int | None) -> None:
        if facts.collection.count_documents({}) == 1:
            raise StoreUnavailable("mongodb", "connection reset by peer")

    return report


def _first_try_stopped(run: Run, facts: FactsStore) -> None:
    with pytest.raises(StoreUnavailable):
        job_run(run=run, on_progress=_outage_after_the_first_fact(facts))
    run.refresh_from_db()
    assert run.status == Run.RUNNING  # open, for the run task to retry
    assert facts.collection.count_documents({}) == 1


def test_a_retried_import_takes_what_its_first_try_wrote_for_no_conflict(
    exported, facts_store: FactsStore
):
    run = import_create(actor=ADA, file=FILE)
    _first_try_stopped(run, facts_store)

    run_job_task.apply(args=[run.pk]).get()

    run.refresh_from_db()
    assert run.status == Run.DONE, run.error
    assert notes_store().collection.count_documents({}) == 5
    assert {d["_id"] for d in facts_store.collection.find({})} == {f["_id"] for f in exported}


def test_a_retried_import_brings_facts_back_into_a_store_that_was_empty_as_they_were(
    exported, facts_store: FactsStore
):
    """Into an empty facts store the pending pair comes back whole (the agent's next
    start does to it what it would have done to the original): the retry does not put
    the second fact through the add test because the first try's fact is there now."""
    run = import_create(actor=ADA, file=FILE, accept_conflicts=True)
    _first_try_stopped(run, facts_store)

    stats = run_job_task.apply(args=[run.pk]).get()

    stored = {d["_id"]: d["content"] for d in facts_store.collection.find({})}
    assert stored == {f["_id"]: f["content"] for f in exported}
    assert stats["facts_skipped"] == []
