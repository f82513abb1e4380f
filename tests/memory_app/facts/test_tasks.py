"""The periodic vanished-facts scan: scheduled by beat, and a scan when it runs."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.urls import reverse

from memory_app.facts.lib import FactsStore
from memory_app.facts.models import SeenFact
from memory_app.facts.tasks import vanished_scan_task
from memory_app.notes.lib.embeddings import Embedder
from qqweb.jobs.models import Run
from tests.memory_app.facts.conftest import agent_writes


def test_beat_runs_the_scan_every_few_minutes() -> None:
    entry = settings.CELERY_BEAT_SCHEDULE["facts-vanished-scan"]
    assert entry == {"task": "facts.vanished_scan", "schedule": settings.QQ_FACTS_SCAN_INTERVAL_S}
    assert 0 < settings.QQ_FACTS_SCAN_INTERVAL_S <= 600


def test_the_task_does_nothing_while_the_facts_store_is_off(db: None) -> None:
    assert vanished_scan_task.apply().get() == {"skipped": "the facts store is off"}


def test_the_task_notices_a_fact_the_agent_deleted(
    db: None, facts_store: FactsStore, agent_model: Embedder
) -> None:
    fact = agent_writes(facts_store, agent_model, "The master likes jazz.", days_ago=2)
    assert vanished_scan_task.apply().get() == {"seen": 1, "new": 1, "vanished": 0}
    facts_store.collection.delete_one({"_id": fact})
    assert vanished_scan_task.apply().get() == {"seen": 0, "new": 0, "vanished": 1}
    assert SeenFact.objects.get(fact_id=str(fact)).cause == SeenFact.UNKNOWN


def test_each_scan_is_a_run_listed_with_the_others(
    db: None, facts_store: FactsStore, agent_model: Embedder, admin_client_: Any
) -> None:
    agent_writes(facts_store, agent_model, "The master likes jazz.", days_ago=2)
    vanished_scan_task.apply().get()
    run = Run.objects.get(kind="vanished_scan")
    assert (run.status, run.started_by) == (Run.DONE, "job:facts-scan")
    assert run.stats == {"seen": 1, "new": 1, "vanished": 0}
    assert (run.processed, run.total) == (1, 1)
    page = admin_client_.get(reverse("memory_app:maintenance")).content.decode()
    assert f'data-run-id="{run.pk}"' in page and "vanished_scan" in page
