"""Editing a note in the browser, and an edit made on a stale copy."""

import time
from typing import Any

from playwright.sync_api import Page, expect

from memory_app.stores import notes_store
from tests.browser.watch import PageWatch
from tests.helpers import add_note


def test_an_edit_is_saved(page: Page, sign_in: Any, curator: Any) -> None:
    add_note("note_00000000edt1", "Lumen deploys on Fridays")
    sign_in(curator)
    page.goto("/notes/note_00000000edt1/")
    page.get_by_label("Content").fill("Lumen deploys on Thursdays")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("status")).to_contain_text("Saved.")
    expect(page.get_by_label("Content")).to_have_value("Lumen deploys on Thursdays")


def test_a_stale_edit_is_refused_with_a_diff_and_can_be_applied_on_top(
    page: Page, page_watch: PageWatch, sign_in: Any, curator: Any
) -> None:
    add_note("note_00000000edt2", "Lumen deploys on Fridays")
    sign_in(curator)
    page.goto("/notes/note_00000000edt2/")
    page.get_by_label("Content").fill("Lumen deploys on Thursdays after review")
    time.sleep(0.01)  # the agent's write gets a later updated_at
    add_note("note_00000000edt2", "Lumen deploys every Monday")  # the agent writes meanwhile
    page_watch.expect(409, "/notes/note_00000000edt2/edit/")
    page.get_by_role("button", name="Save", exact=True).click()

    expect(
        page.get_by_role("heading", name="Not saved: the note changed meanwhile")
    ).to_be_visible()
    store_side = page.get_by_role("region", name="The version in the store now")
    mine = page.get_by_role("region", name="Your version")
    expect(store_side.locator(".gone")).to_have_text("every Monday")
    expect(mine.locator(".new")).to_have_text("on Thursdays after review")

    page.get_by_role("button", name="Save my version over this one").click()
    expect(page.get_by_role("status")).to_contain_text("Saved.")
    note = notes_store().note("note_00000000edt2")
    assert note is not None and note.content == "Lumen deploys on Thursdays after review"
