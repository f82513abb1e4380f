"""The periodic vanished-facts scan: scheduled by beat, and a scan when it runs."""

from __future__ import annotations

from django.conf import settings

from memory_app.facts.lib import FactsStore
from memory_app.facts.models import SeenFact
from memory_app.facts.tasks import vanished_scan_task
from qqweb.lib.embeddings import Embedder
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
