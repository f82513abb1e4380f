"""A pinned recall guards the archival plan in the browser, through the real worker: the
preview names the pin the plan would lose and marks its note; applied anyway, the memory
tests page fails that pin; the run undone, it passes again. Screenshots go to
``QQ_TEST_SCREENSHOTS`` when set."""

import os
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from qqweb.lib.actors import Actor
from qqweb.recall.models import TestRun
from qqweb.recall.services import pin_create
from tests.helpers import plant_note

LUMEN = "Lumen stores its notes in MongoDB with embeddings"
PINNED = "note_lumen000001"
FADED = ("note_0000000000f1", "note_0000000000f2")
KEPT = ("note_0000000000k1", "note_0000000000k2")
CURATOR = Actor("user", "ada-admin", role="admin")
WORKER_WAIT = 60_000  # the worker on a loaded 2-core machine; a wait ends once met


def _shot(page: Page, name: str) -> None:
    folder = os.environ.get("QQ_TEST_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)


def _memory_tests_page(page: Page, status: str) -> Any:
    """Run the memory tests from their page until the pin's row has ``status``: the
    worker wrote in its own process, and this process's vector index follows its writes
    about a second later. Returns the row."""
    page.goto("/memory-tests/")
    row = page.locator("#pins-table tr[data-pin]")
    deadline = time.monotonic() + 15
    runs = TestRun.objects.count()
    while True:
        page.locator("#memory-tests-run").click()
        runs += 1
        # the run is a job in the worker: the page polls its progress, then shows it
        expect(page.locator("#memory-tests-verdict a")).to_have_text(
            f"#{latest_run_id(runs)}", timeout=WORKER_WAIT
        )
        if row.get_attribute("data-status") == status or time.monotonic() > deadline:
            return row
        page.wait_for_timeout(250)


def latest_run_id(runs: int) -> int:
    """The id of the ``runs``-th run, once it is stored."""
    deadline = time.monotonic() + WORKER_WAIT / 1000
    while TestRun.objects.count() < runs and time.monotonic() < deadline:
        time.sleep(0.1)
    run = TestRun.objects.order_by("-pk").first()
    assert run is not None
    return run.pk


def test_the_archival_preview_warns_of_the_pin_it_loses_and_undo_brings_the_recall_back(
    page: Page, sign_in: Any, admin_user: Any, dev_broker_worker: dict[str, str]
) -> None:
    plant_note(PINNED, importance=0.3, days_old=0, content=LUMEN)  # recalled: 0.3 >= 0.2
    for note_id in FADED:
        plant_note(note_id, importance=0.01, days_old=300)
    for note_id in KEPT:
        plant_note(note_id, importance=0.9, days_old=1)
    pin_create(actor=CURATOR, query=LUMEN, item_id=PINNED, comment="where the notes live")

    sign_in(admin_user)
    passing = _memory_tests_page(page, "pass")
    expect(passing).to_have_attribute("data-status", "pass")
    expect(passing.locator("td.num")).to_have_text("1")
    page.goto("/maintenance/")
    page.locator("#job-form-archival input[name=threshold]").fill("0.5")  # raised
    page.locator("#job-preview-archival").click()
    expect(page.locator("#run-status")).to_have_text("done", timeout=WORKER_WAIT)
    expect(page.locator("#plan-summary")).to_contain_text("Archive 3 of 5 notes (60%)?")
    warning = page.locator("#plan-pins-lost")
    expect(warning).to_contain_text("This plan loses 1 of 1 pinned recall:")
    # the pinned note is named by its text (the same as the question here), linked
    expect(warning.locator("li")).to_contain_text(f"“{LUMEN}” → {LUMEN}")
    expect(warning.locator("li")).to_contain_text("archived by this plan")
    expect(warning.locator(f'a[href="/notes/{PINNED}/"]')).to_have_text(LUMEN)
    expect(page.locator(f'#plan-table tr[data-note-id="{PINNED}"]')).to_have_class("pinned")
    expect(page.locator(f'#plan-table tr[data-note-id="{PINNED}"] .pin-marker')).to_be_visible()
    expect(page.locator(f'#plan-table tr[data-note-id="{FADED[0]}"] .pin-marker')).to_have_count(0)
    _shot(page, "plan-pins-lost")

    page.locator("#plan-apply-button").click()
    expect(page.locator("#run-plan-of")).to_be_visible()
    expect(page.locator("#run-status")).to_have_text("done", timeout=WORKER_WAIT)
    expect(page.locator('[data-stat="archived"]')).to_have_text("3")
    applied_url = page.url
    failing = _memory_tests_page(page, "fail")
    expect(failing).to_have_attribute("data-status", "fail")
    expect(failing).to_contain_text("archived on ")
    _shot(page, "memory-tests-fail-after-archival")

    page.goto(applied_url)
    page.locator("#run-undo").click()
    expect(page.locator("#run-status")).to_have_text("done", timeout=WORKER_WAIT)
    back = _memory_tests_page(page, "pass")
    expect(back).to_have_attribute("data-status", "pass")
    expect(back.locator("td.num")).to_have_text("1")
