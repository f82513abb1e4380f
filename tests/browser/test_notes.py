"""The notes list in a browser: filter, page, and a bulk archive behind its confirmation."""

import re
from typing import Any

from playwright.sync_api import Page, expect

from tests.browser.words import assert_reads_as_words, shot
from tests.helpers import add_note


def _plant(count: int) -> None:
    for i in range(count):
        add_note(f"note_{i:012d}", f"Ordinary note number {i} about the garden")
    add_note("note_00000000lum1", "Lumen keeps its vectors in MongoDB")
    add_note("note_00000000lum2", "Lumen deploys on Fridays")


def test_filtering_narrows_the_list_and_the_url_keeps_it(
    page: Page, sign_in: Any, curator: Any
) -> None:
    _plant(3)
    sign_in(curator)
    page.goto("/notes/")
    expect(page.get_by_label("Sort")).to_have_value("updated")
    page.get_by_label("Contains").fill("Lumen")
    page.get_by_role("button", name="Filter").click()
    rows = page.locator("#notes-table tbody tr")
    expect(rows).to_have_count(2)
    expect(page).to_have_url(re.compile(r"[?&]text=Lumen"))
    page.reload()
    expect(rows).to_have_count(2)


def test_the_next_page_shows_the_rest(page: Page, sign_in: Any, curator: Any) -> None:
    _plant(55)
    sign_in(curator)
    page.goto("/notes/")
    rows = page.locator("#notes-table tbody tr")
    expect(rows).to_have_count(50)
    page.get_by_role("link", name="Next page »").click()
    expect(rows).to_have_count(7)
    expect(page.get_by_text("End of the list.")).to_be_visible()


def test_bulk_archive_asks_next_to_apply_then_archives_exactly_the_ticked_notes(
    page: Page, sign_in: Any, curator: Any
) -> None:
    _plant(3)
    sign_in(curator)
    page.goto("/notes/")
    page.get_by_label("Select note_00000000lum1").check()
    page.get_by_label("Select note_00000000lum2").check()
    apply = page.get_by_role("button", name="Apply…")
    apply.click()
    dialog = page.get_by_role("dialog", name="Confirm bulk action")
    expect(dialog.locator("#bulk-question")).to_contain_text("Archive 2 notes?")
    assert_reads_as_words(dialog)
    expect(dialog).to_contain_text("Lumen keeps its vectors in MongoDB")
    expect(dialog).to_contain_text("Lumen deploys on Fridays")
    apply_box, dialog_box = apply.bounding_box(), dialog.bounding_box()
    assert apply_box and dialog_box and dialog_box["y"] - apply_box["y"] < 200
    dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_have_count(0)
    expect(page.locator("#notes-table tbody tr")).to_have_count(5)

    apply.click()
    dialog.get_by_role("button", name="Yes, apply to 2").click()
    expect(page.get_by_role("status")).to_contain_text("Archived 2 notes.")
    assert_reads_as_words(page.locator("#messages"))
    shot(page, "bulk-archived-in-words")
    expect(page.locator("#notes-table tbody tr")).to_have_count(3)
    expect(page.get_by_text("Lumen deploys on Fridays")).to_have_count(0)
