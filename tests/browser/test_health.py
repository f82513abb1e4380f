"""The Health page in the browser: the worker of ``make dev``'s broker shown running; with
no worker, a duplicate scan says it waits in the queue and how to start one."""

import time
from typing import Any

from playwright.sync_api import Page, expect

from qqweb.liveness import liveness


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
