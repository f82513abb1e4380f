"""The archive in the browser: a restored note, kept from archival for a grace period, is
left alone by the next archival pass run through the real worker."""

import json
import tempfile
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from memory_app.notes.services import note_archive
from memory_app.notes.stores import archive_manager, notes_store
from qqweb.lib.actors import Actor
from tests.helpers import plant_note

SHOTS = Path(tempfile.gettempdir()) / "qqweb-browser-shots"
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


def test_a_search_of_a_long_archive_goes_on_to_older_lines(
    page: Page, sign_in: Any, viewer: Any
) -> None:
    """About 4 MB of archive: a search reads back 2 MB a page, says how far back it
    looked, and the curator follows "Search older lines" to the old note."""
    manager = archive_manager()
    old = {"note_id": "note_00000000a000", "content": "Lumen moved its servers to Oslo"}
    lines = [{**old, "archived_at": "2025-01-02T03:04:05"}]
    lines += [
        {
            "note_id": f"note_{i:012x}",
            "content": f"note number {i} " + "filler " * 40,
            "archived_at": f"2026-{1 + i * 12 // 8000:02d}-10T10:00:00",
        }
        for i in range(1, 8000)
    ]
    common = {"section": "Key Topics", "importance": 0.02, "reason": "low_importance"}
    with open(manager.archive_file, "a") as f:
        f.writelines(json.dumps({**common, **line}) + "\n" for line in lines)
    sign_in(viewer)
    page.goto("/archive/")
    expect(page.locator("h1")).to_contain_text("8000 lines")
    page.locator("input[name=q]").fill("oslo")
    page.locator("form.filters button[type=submit]").click()
    expect(page.locator("#archive-table")).to_contain_text("Nothing archived matches")
    expect(page.locator("#archive-table")).to_contain_text("Searched the lines archived since")
    page.locator("#archive-older").click()
    expect(page.locator("#archive-table")).to_contain_text("Lumen moved its servers to Oslo")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "archive-older-search.png"), full_page=True)
