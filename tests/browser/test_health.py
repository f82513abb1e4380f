"""The Health page in the browser: the worker of ``make dev``'s broker shown running; with
no worker, a duplicate scan says it waits in the queue and how to start one."""

import os
import re
import time
from datetime import timedelta
from typing import Any

from django.utils import timezone
from playwright.sync_api import Page, expect

from qqweb.health import forget_cached_health
from qqweb.liveness import heartbeat_record, liveness
from qqweb.models import ProcessHeartbeat
from tests.services import free_port


def test_the_health_page_shows_the_running_worker(
    page: Page, sign_in: Any, viewer: Any, dev_broker_worker: dict[str, str]
) -> None:
    deadline = time.monotonic() + 30  # a transactional test's flush emptied the heartbeats
    while not liveness().worker_alive and time.monotonic() < deadline:
        time.sleep(0.5)
    sign_in(viewer)
    page.goto("/health/")
    workers = page.locator("#worker-liveness")
    expect(workers).to_have_attribute("data-alive", "true")
    expect(workers).to_contain_text("qqweb-dev-broker@")
    expect(workers.locator("tr[data-state=alive]")).to_have_count(1)
    expect(page.locator("#worker-problem")).to_have_count(0)


def test_a_scan_with_no_worker_says_it_waits_and_how_to_start_one(
    page: Page, sign_in: Any, admin_user: Any, own_dev_broker: dict[str, str]
) -> None:
    sign_in(admin_user)
    page.goto("/review/")
    page.get_by_role("button", name="Scan for duplicates").click()
    notice = page.locator("#no-worker")
    expect(notice).to_contain_text("queued, and no worker is running")
    expect(notice).to_contain_text("celery -A qqweb worker")
    notice.get_by_role("link", name="Health").click()
    expect(page.locator("#worker-problem")).to_contain_text("No worker is running")


def test_the_first_page_shows_the_stores_checking_then_each_stores_dot_and_the_banner(
    page: Page, sign_in: Any, viewer: Any, settings: Any
) -> None:
    """The process has not checked the stores yet: the page comes at once with the dots
    "checking", asks for them, and a store that is down brings its banner."""
    settings.NEO4J_URI = f"bolt://127.0.0.1:{free_port()}"
    settings.QQ_STORE_TIMEOUT_MS = 500
    forget_cached_health()
    sign_in(viewer)
    page.goto("/notes/")
    dots = page.locator("#store-status li")
    expect(dots.filter(has_text="mongodb")).to_have_class("up")
    expect(dots.filter(has_text="neo4j")).to_have_class("down")
    expect(page.locator("#store-status li.checking")).to_have_count(0)
    expect(page.locator("#store-banner")).to_contain_text("Neo4j is down")


def test_the_worker_dot_turns_red_when_the_workers_heartbeat_stops(
    page: Page, sign_in: Any, viewer: Any, own_dev_broker: dict[str, str], settings: Any
) -> None:
    """A worker that died without saying so (killed, its machine gone) stops writing its
    heartbeat: the header's worker dot follows the heartbeat, not the broker."""
    row = heartbeat_record(
        kind=ProcessHeartbeat.WORKER,
        hostname="celery@dying",
        pid=4242,
        started_at=timezone.now(),
        broker_url=settings.CELERY_BROKER_URL,
        queues=["celery"],
    )
    sign_in(viewer)
    page.goto("/notes/")
    dot = page.locator("#worker-dot")
    expect(dot).to_have_class("up")
    expect(dot).to_have_attribute("title", re.compile(r"worker: alive"))
    stale = timezone.now() - timedelta(seconds=settings.QQ_HEARTBEAT_STALE_S + 60)
    ProcessHeartbeat.objects.filter(pk=row.pk).update(last_seen=stale)
    page.reload()
    expect(dot).to_have_class("down")
    expect(dot).to_have_attribute("title", re.compile(r"No worker is running.*celery -A qqweb"))
    expect(page.locator("#store-status li.up")).not_to_have_count(0)  # the stores: still up
    shots = os.environ.get("QQ_TEST_SCREENSHOTS")
    if shots:
        dot.hover()
        page.screenshot(
            path=f"{shots}/worker-dot-down.png", clip={"x": 700, "y": 0, "width": 580, "height": 60}
        )
