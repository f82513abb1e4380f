"""A pinned recall guards the archival plan in the browser, through the real worker: the
preview names the pin the plan would lose and marks its note; applied anyway, the memory
tests fail for that pin; the run undone, they pass again. Screenshots go to
``QQ_TEST_SCREENSHOTS`` when set."""

import os
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from qqweb.lib.actors import Actor
from qqweb.recall.models import PinResult, TestRun
from qqweb.recall.services import memory_tests_run, pin_create
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


def _memory_test(passed: bool) -> PinResult:
    """The pin's result in a run of the memory tests, once it is ``passed``: the worker
    wrote in its own process, and this process's vector index follows its writes about
    a second later."""
    deadline = time.monotonic() + 15
    while True:
        result = memory_tests_run(actor=CURATOR, trigger=TestRun.PAGE).results.get()
        if result.passed == passed or time.monotonic() > deadline:
            return result
        time.sleep(0.25)


def test_the_archival_preview_warns_of_the_pin_it_loses_and_undo_brings_the_recall_back(
    page: Page, sign_in: Any, admin_user: Any, dev_broker_worker: dict[str, str]
) -> None:
    plant_note(PINNED, importance=0.3, days_old=0, content=LUMEN)  # recalled: 0.3 >= 0.2
    for note_id in FADED:
        plant_note(note_id, importance=0.01, days_old=300)
    for note_id in KEPT:
        plant_note(note_id, importance=0.9, days_old=1)
    pin_create(actor=CURATOR, query=LUMEN, item_id=PINNED, comment="where the notes live")
    assert _memory_test(passed=True).rank == 1

    sign_in(admin_user)
    page.goto("/maintenance/")
    page.locator("#job-form-archival input[name=threshold]").fill("0.5")  # raised
    page.locator("#job-preview-archival").click()
    expect(page.locator("#run-status")).to_have_text("done", timeout=WORKER_WAIT)
    expect(page.locator("#plan-summary")).to_contain_text("Archive 3 of 5 notes (60%)?")
    warning = page.locator("#plan-pins-lost")
    expect(warning).to_contain_text("This plan loses 1 of 1 pinned recall:")
    expect(warning.locator("li")).to_contain_text(f"“{LUMEN}” → {PINNED}")
    expect(warning.locator("li")).to_contain_text("archived by this plan")
    expect(warning.get_by_role("link", name=PINNED)).to_have_attribute("href", f"/notes/{PINNED}/")
    expect(page.locator(f'#plan-table tr[data-note-id="{PINNED}"]')).to_have_class("pinned")
    expect(page.locator(f'#plan-table tr[data-note-id="{PINNED}"] .pin-marker')).to_be_visible()
    expect(page.locator(f'#plan-table tr[data-note-id="{FADED[0]}"] .pin-marker')).to_have_count(0)
    _shot(page, "plan-pins-lost")

    page.locator("#plan-apply-button").click()
    expect(page.locator("#run-plan-of")).to_be_visible()
    expect(page.locator("#run-status")).to_have_text("done", timeout=WORKER_WAIT)
    expect(page.locator('[data-stat="archived"]')).to_have_text("3")
    applied_url = page.url
    failed = _memory_test(passed=False)
    assert not failed.passed and failed.reason.startswith("archived on ")

    page.goto(applied_url)
    page.locator("#run-undo").click()
    expect(page.locator("#run-status")).to_have_text("done", timeout=WORKER_WAIT)
    back = _memory_test(passed=True)
    assert back.passed and back.rank == 1, back.reason
