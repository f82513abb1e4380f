"""Worker and beat liveness on the Health page, ``GET /api/health`` and ``/healthz``, and
the "no worker is running" notice where a job starts: against real worker and beat
processes, on the broker ``make dev`` runs (kombu's SQLAlchemy transport on SQLite, which
has no broadcast: ping and inspect cannot see a worker there) and on Redis."""

from __future__ import annotations

import signal
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from qqweb.jobs.models import Run
from qqweb.liveness import heartbeat_record
from qqweb.models import ProcessHeartbeat
from tests.services import start_celery_beat, start_celery_worker, stop

pytestmark = pytest.mark.django_db(transaction=True)


def _health_until(client: Client, done: Callable[[str], bool], timeout: float = 60) -> str:
    """The Health page, once ``done`` holds for it (heartbeats arrive every few seconds)."""
    deadline = time.monotonic() + timeout
    while True:
        page = client.get(reverse("health")).content.decode()
        if done(page) or time.monotonic() > deadline:
            return page
        time.sleep(0.5)


def _section(page: str, kind: str) -> str:
    start = page.index(f'id="{kind}-liveness"')
    return page[start : page.index("</section>", start)]


@pytest.fixture
def beat_process(own_dev_broker: dict[str, str], tmp_path: Path) -> Iterator[Any]:
    """A real beat process, started as ``make dev`` starts it, on this test's broker."""
    proc = start_celery_beat(own_dev_broker, tmp_path)
    yield proc
    stop(proc)


def test_the_health_page_shows_the_make_dev_worker_alive(dev_broker_worker, viewer_client):
    page = _health_until(viewer_client, lambda p: 'data-alive="true"' in _section(p, "worker"))
    workers = _section(page, "worker")
    assert 'data-alive="true"' in workers
    assert "qqweb-dev-broker@" in workers and ">alive<" in workers
    assert 'id="worker-problem"' not in page
    jobs = viewer_client.get("/api/health").json()["jobs"]
    assert jobs["worker_alive"] is True
    worker = next(w for w in jobs["workers"] if w["hostname"].startswith("qqweb-dev-broker@"))
    assert worker["state"] == "alive" and worker["concurrency"] == 2
    assert worker["queues"] == ["celery"]


def test_the_health_page_shows_the_redis_worker_alive(celery_worker, viewer_client):
    page = _health_until(viewer_client, lambda p: 'data-alive="true"' in _section(p, "worker"))
    assert "qqweb-test@" in _section(page, "worker")
    assert Client().get("/healthz").json()["jobs"]["worker_alive"] is True


def test_with_no_worker_health_says_jobs_will_wait_and_how_to_start_one(
    stores, own_dev_broker, viewer_client
):
    page = viewer_client.get(reverse("health")).content.decode()
    workers = _section(page, "worker")
    assert 'data-alive="false"' in workers and "not running" in workers
    assert "No worker is running (none has reported in the last 60 s): jobs" in workers
    assert "will wait in the queue" in workers and "celery -A qqweb worker" in workers
    body = viewer_client.get("/api/health").json()["jobs"]
    assert body["worker_alive"] is False and body["workers"] == []
    assert any("celery -A qqweb worker" in p for p in body["problems"])
    healthz = Client().get("/healthz")
    assert healthz.status_code == 200  # the web process itself is fine
    assert healthz.json()["jobs"] == {
        "worker_alive": False,
        "workers_alive": 0,
        "beat_alive": False,
    }


def test_a_worker_silent_for_longer_than_the_limit_shows_as_gone(
    stores, own_dev_broker, viewer_client, settings
):
    heartbeat_record(
        kind=ProcessHeartbeat.WORKER,
        hostname="celery@crashed",
        pid=4242,
        started_at=timezone.now() - timedelta(hours=1),
        broker_url=settings.CELERY_BROKER_URL,
        concurrency=2,
        queues=["celery"],
        now=timezone.now() - timedelta(seconds=settings.QQ_HEARTBEAT_STALE_S + 30),
    )
    workers = _section(viewer_client.get(reverse("health")).content.decode(), "worker")
    assert "celery@crashed" in workers and 'data-state="gone"' in workers
    assert "No worker is running" in workers
    assert viewer_client.get("/api/health").json()["jobs"]["workers"][0]["state"] == "gone"


def test_a_worker_stopped_cleanly_shows_as_stopped_at_once(
    stores, own_dev_broker, viewer_client, tmp_path
):
    proc = start_celery_worker(
        own_dev_broker, tmp_path, name="qqweb-liveness", pool=("--pool=threads", "--concurrency=2")
    )
    try:
        page = _health_until(viewer_client, lambda p: "qqweb-liveness@" in _section(p, "worker"))
        assert 'data-alive="true"' in _section(page, "worker")
    finally:
        stop(proc)
    page = _health_until(viewer_client, lambda p: 'data-state="stopped"' in _section(p, "worker"))
    workers = _section(page, "worker")
    assert 'data-state="stopped"' in workers and f"pid {proc.pid}" in workers
    assert 'id="worker-problem"' in workers


def test_beat_shows_alive_then_gone_when_it_dies(stores, beat_process, viewer_client, settings):
    page = _health_until(viewer_client, lambda p: 'data-alive="true"' in _section(p, "beat"))
    beat = _section(page, "beat")
    assert f"pid {beat_process.pid}" in beat and 'id="beat-problem"' not in beat
    assert viewer_client.get("/api/health").json()["jobs"]["beat_alive"] is True
    beat_process.send_signal(signal.SIGKILL)  # no clean shutdown: it just goes silent
    beat_process.wait(10)
    settings.QQ_HEARTBEAT_STALE_S = 3
    page = _health_until(viewer_client, lambda p: 'data-state="gone"' in _section(p, "beat"))
    beat = _section(page, "beat")
    assert 'data-state="gone"' in beat
    assert "Beat is not running (it has not reported in the last 3 s): scheduled" in beat
    assert "celery -A qqweb beat" in beat


def test_a_dry_run_started_with_no_worker_says_it_waits_in_the_queue(
    stores, own_dev_broker, admin_client_
):
    response = admin_client_.post(
        reverse("memory_app:maintenance_start", args=["decay"]), {"dry_run": "on"}, follow=True
    )
    page = response.content.decode()
    assert Run.objects.get().status == "queued"
    assert 'id="no-worker"' in page and "queued, and no worker is running" in page


def test_a_duplicate_scan_started_with_no_worker_says_it_waits_in_the_queue(
    stores, own_dev_broker, admin_client_
):
    response = admin_client_.post(reverse("memory_app:review_scan"), {"threshold": "0.9"})
    assert 'id="no-worker"' in response.content.decode()
    review = admin_client_.get(reverse("memory_app:review")).content.decode()
    assert 'id="scan-open"' in review and 'id="no-worker"' in review


def test_the_liveness_command_fails_with_the_reason_until_beat_reports(settings):
    with pytest.raises(CommandError, match="Beat is not running"):
        call_command("liveness", "beat")
    heartbeat_record(
        kind=ProcessHeartbeat.BEAT,
        hostname="beat-host",
        pid=7,
        started_at=timezone.now(),
        broker_url=settings.CELERY_BROKER_URL,
    )
    out = StringIO()
    call_command("liveness", "beat", "--hostname", "beat-host", stdout=out)
    assert "beat-host pid 7: alive" in out.getvalue()
    with pytest.raises(CommandError):
        call_command("liveness", "beat", "--hostname", "other-host")


def test_an_export_started_with_no_worker_says_it_waits_in_the_queue(
    stores, own_dev_broker, admin_client_
):
    page = admin_client_.post(reverse("backup:export"), follow=True).content.decode()
    assert Run.objects.get().status == "queued"
    assert 'id="no-worker"' in page and "queued, and no worker is running" in page
