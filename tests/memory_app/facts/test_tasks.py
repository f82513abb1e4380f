"""The periodic vanished-facts scan: scheduled by beat, and a scan when it runs."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.db.models.signals import post_save
from django.urls import reverse
from django.utils import timezone

from memory_app.facts.lib import FactsStore
from memory_app.facts.models import SeenFact
from memory_app.facts.tasks import vanished_scan_task
from qqweb.jobs.models import JobLock, Run
from qqweb.jobs.runs import run_cancel
from qqweb.lib.actors import Actor
from qqweb.lib.embeddings import Embedder
from qqweb.lib.errors import StoreUnavailable
from tests.memory_app.facts.conftest import agent_writes
from tests.services import free_port


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
    row = page.split(f'data-run-id="{run.pk}"')[1].split("</tr>")[0]
    # the kind and who started it in words; the keys only in the cells' titles
    assert '<td title="vanished_scan">Vanished-facts scan' in row
    assert '<td data-label="Started by" title="job:facts-scan">facts scan (automatic)</td>' in row


def test_automatic_scans_that_found_nothing_are_one_line_above_the_runs(
    db: None, facts_store: FactsStore, agent_model: Embedder, admin_client_: Any
) -> None:
    """Beat's scan every few minutes would fill the history and push a curator's runs
    out: the ones that found nothing are counted in one line instead."""
    agent_writes(facts_store, agent_model, "The master likes jazz.", days_ago=2)
    for _ in range(4):
        vanished_scan_task.apply().get()
    first, *quiet = Run.objects.filter(kind="vanished_scan").order_by("pk")
    page = admin_client_.get(reverse("memory_app:maintenance")).content.decode()
    assert "Vanished-facts scan: 3 automatic runs, last " in page
    assert "ago, nothing found (not listed below)." in page
    assert f'data-run-id="{first.pk}"' in page  # it found a new fact: listed
    assert not [run for run in quiet if f'data-run-id="{run.pk}"' in page]


def test_a_scan_while_another_runs_is_refused_naming_that_run(
    db: None, facts_store: FactsStore, agent_model: Embedder, curator_client: Any
) -> None:
    agent_writes(facts_store, agent_model, "The master likes jazz.", days_ago=2)
    holder = Run.objects.create(kind="vanished_scan", started_by="job:facts-scan")
    Run.objects.filter(pk=holder.pk).update(status=Run.RUNNING, heartbeat_at=timezone.now())
    JobLock.objects.create(
        kind="vanished_scan", run=holder, expires_at=timezone.now() + timedelta(minutes=5)
    )
    response = curator_client.post("/api/facts/vanished/scan")
    assert response.status_code == 409
    assert (
        f"vanished_scan is running already (run {holder.pk})" in response.json()["error"]["message"]
    )
    page = curator_client.post(reverse("facts_app:vanished_scan"), follow=True)
    assert page.status_code == 200
    assert f"vanished_scan is running already (run {holder.pk})" in page.content.decode()
    assert not SeenFact.objects.exists()  # nothing scanned


def test_a_scan_that_finds_the_facts_store_down_fails_its_run_naming_the_outage(
    db: None, settings: Any
) -> None:
    settings.QQ_FACTS_MONGO_URI = f"mongodb://127.0.0.1:{free_port()}/facts"
    settings.QQ_STORE_TIMEOUT_MS = 200
    with pytest.raises(StoreUnavailable):
        vanished_scan_task.apply().get()
    run = Run.objects.get(kind="vanished_scan")
    assert run.status == Run.FAILED  # not left running until the reaper closes it
    assert "unavailable" in run.error and run.finished_at is not None
    assert not JobLock.objects.exists()


@pytest.fixture
def cancelled_while_it_runs(db: None) -> Iterator[None]:
    """An admin cancels each scan from the Jobs page as soon as it reports progress."""

    def cancel(sender: Any, instance: Run, update_fields: Any = None, **_: Any) -> None:
        if instance.kind == "vanished_scan" and update_fields and "processed" in update_fields:
            run_cancel(actor=Actor("user", "ada-admin"), run_id=instance.pk)

    post_save.connect(cancel, sender=Run, dispatch_uid="cancel-the-scan")
    yield
    post_save.disconnect(sender=Run, dispatch_uid="cancel-the-scan")


def test_a_scan_cancelled_while_it_runs_says_so_and_writes_nothing(
    facts_store: FactsStore, agent_model: Embedder, curator_client: Any, cancelled_while_it_runs
) -> None:
    agent_writes(facts_store, agent_model, "The master likes jazz.", days_ago=2)
    response = curator_client.post("/api/facts/vanished/scan")
    assert response.status_code == 409
    assert "was cancelled before it finished" in response.json()["error"]["message"]
    page = curator_client.post(reverse("facts_app:vanished_scan"), follow=True)
    assert page.status_code == 200 and "was cancelled before it finished" in page.content.decode()
    assert "cancelled" in vanished_scan_task.apply().get()
    assert not SeenFact.objects.exists()  # nothing scanned
    assert set(Run.objects.values_list("status", flat=True)) == {Run.CANCELLED}
