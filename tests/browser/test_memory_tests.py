"""Memory tests in the browser: a curator pins a note from the retrieval preview, opens
the Memory tests page, runs the tests and sees the pin pass; once the note is archived
the next run fails it with the reason, and Undo of the archive makes it pass again."""

import tempfile
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from memory_app.notes.stores import core_notes
from tests.helpers import plant_note

SHOTS = Path(tempfile.gettempdir()) / "qqweb-browser-shots"
LUMEN = "Lumen stores its notes in MongoDB with embeddings"
NOTE = "note_lumen00001"


def test_pin_from_the_retrieval_preview_then_see_the_memory_tests_pass(
    page: Page, sign_in: Any, curator: Any
) -> None:
    plant_note(NOTE, content=LUMEN)
    plant_note("note_tea0000001", content="Ada prefers tea in the morning")
    core_notes().add_core("The user is called Ada", "Identity")
    sign_in(curator)
    page.goto("/retrieval/")
    page.locator("textarea[name=message]").fill("Where does Lumen store its notes?")
    page.get_by_role("button", name="Preview").click()
    cited = page.locator("#retrieval-preview li", has_text=LUMEN)
    expect(cited).to_be_visible()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "retrieval-pin-this.png"), full_page=True)
    cited.get_by_role("button", name="Pin this").click()
    expect(page.locator("#messages")).to_contain_text(f"-> {NOTE}")
    expect(page.locator("#message-undo")).to_be_visible()
    # back on the preview of the same message
    expect(page.locator("#retrieval-preview")).to_contain_text(LUMEN)

    page.get_by_role("link", name="Memory tests").click()
    expect(page.locator("#pins-table tr[data-status='not run']")).to_have_count(1)
    page.locator("#memory-tests-run").click()
    expect(page.locator("#memory-tests-verdict")).to_contain_text("all 1 pass")
    expect(page.locator("#pins-table tr[data-status='pass']")).to_contain_text(LUMEN)
    expect(page.locator("#memory-tests-sources tr[data-source='notes']")).to_contain_text("1.00")
    page.locator("#memory-tests-run").click()  # a second run: the history has two points
    expect(page.locator(".history-chart circle")).to_have_count(4)
    page.screenshot(path=str(SHOTS / "memory-tests-pass.png"), full_page=True)

    page.goto(f"/notes/{NOTE}/")
    page.locator("form[action$='/archive/'] button.danger").click()
    expect(page.locator("#messages")).to_contain_text("rchived")
    page.goto("/memory-tests/")
    page.locator("#memory-tests-run").click()
    expect(page.locator("#memory-tests-verdict")).to_contain_text("1 of 1 fail")
    expect(page.locator("#pins-table tr[data-status='fail']")).to_contain_text("archived on ")
    page.screenshot(path=str(SHOTS / "memory-tests-fail.png"), full_page=True)
