"""The archive in the browser: a restored note, kept from archival for a grace period, is
left alone by the next archival pass run through the real worker."""

from typing import Any

from playwright.sync_api import Page, expect

from memory_app.services import note_archive
from memory_app.stores import notes_store
from qqweb.actors import Actor
from tests.helpers import plant_note

RESTORED, FADED, KEPT = "note_0000000000r1", "note_0000000000f1", "note_0000000000k1"


def test_a_restored_note_is_left_by_the_next_archival_pass(
    page: Page, sign_in: Any, admin_user: Any, dev_broker_worker: dict[str, str]
) -> None:
    plant_note(RESTORED, importance=0.01, days_old=300)
    plant_note(FADED, importance=0.01, days_old=300)
    plant_note(KEPT, importance=0.9, days_old=1)
    note_archive(actor=Actor("user", "ada-admin"), note_id=RESTORED)
    sign_in(admin_user)
    page.goto("/archive/")
    page.locator(f'a[href="/archive/{RESTORED}/restore/"]').click()
    # the preview says the note comes back faded, and the pass would take it again
    expect(page.locator("#restore-effective")).to_contain_text("archives it again")
    page.locator("#keep-days").fill("7")
    page.locator("#restore-submit").click()
    expect(page.locator("#messages")).to_contain_text(f"Restored {RESTORED}")

    page.goto("/maintenance/")
    page.locator("#job-form-archival input[name=threshold]").fill("0.05")
    page.locator("#job-preview-archival").click()
    expect(page.locator("#run-status")).to_have_text("done", timeout=60_000)
    expect(page.locator("#plan-table tr[data-note-id]")).to_have_count(1)
    expect(page.locator(f'#plan-table tr[data-note-id="{FADED}"]')).to_have_count(1)
    page.locator("#plan-apply-button").click()
    expect(page.locator("#run-plan-of")).to_be_visible()
    expect(page.locator("#run-status")).to_have_text("done", timeout=60_000)
    expect(page.locator('[data-stat="archived"]')).to_have_text("1")

    page.goto("/notes/")
    expect(page.locator(f'#notes-table a[href="/notes/{RESTORED}/"]')).to_be_visible()
    expect(page.locator(f'#notes-table a[href="/notes/{FADED}/"]')).to_have_count(0)
    assert notes_store().note(RESTORED) is not None
