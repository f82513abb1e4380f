"""Editing a note in the browser, and an edit made on a stale copy."""

import tempfile
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from memory_app.notes.stores import notes_store
from tests.browser.watch import PageWatch
from tests.browser.words import assert_reads_as_words, shot
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
    # no "reload it and make your change again" above a working Save my version
    expect(page.locator("#stale-why")).to_have_text(
        "The note was changed after you opened it. Compare the two versions below, then "
        "save yours over it, or keep the store's."
    )
    expect(page.get_by_text("make your change again")).to_have_count(0)
    assert_reads_as_words(page.locator("main"))
    shot(page, "stale-edit-in-words")

    page.get_by_role("button", name="Save my version over this one").click()
    expect(page.get_by_role("status")).to_contain_text("Saved.")
    note = notes_store().note("note_00000000edt2")
    assert note is not None and note.content == "Lumen deploys on Thursdays after review"


SHOTS = Path(tempfile.gettempdir()) / "qqweb-browser-shots"


def _two_tabs(page: Page, page_watch: PageWatch, note_id: str) -> Page:
    """Tab B opens the note first; ``page`` is tab A. Returns tab B."""
    tab_b = page.context.new_page()
    page_watch.listen(tab_b)
    tab_b.goto(f"/notes/{note_id}/")
    page.goto(f"/notes/{note_id}/")
    return tab_b


def test_save_my_version_writes_only_the_text_over_another_tabs_importance(
    page: Page, page_watch: PageWatch, sign_in: Any, curator: Any
) -> None:
    add_note("note_00000000edt3", "Lumen deploys on Fridays", importance=0.6)
    sign_in(curator)
    tab_b = _two_tabs(page, page_watch, "note_00000000edt3")
    page.get_by_role("spinbutton", name="Importance").fill("0.7")  # tab A
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("status")).to_contain_text("Saved.")

    page_watch.expect(409, "/notes/note_00000000edt3/edit/")
    tab_b.get_by_label("Content").fill("Lumen deploys on Thursdays")  # tab B: the text only
    tab_b.get_by_role("button", name="Save", exact=True).click()
    expect(tab_b.locator("#save-mine-fields")).to_have_text(
        "Saving writes your text; it keeps the store's importance (0.7), changed since you "
        "opened the form."
    )
    SHOTS.mkdir(exist_ok=True)
    tab_b.screenshot(path=str(SHOTS / "stale-edit-merge.png"), full_page=True)
    tab_b.get_by_role("button", name="Save my version over this one").click()
    expect(tab_b.get_by_role("status")).to_contain_text("Saved.")
    expect(tab_b.get_by_role("spinbutton", name="Importance")).to_have_value("0.7")
    note = notes_store().note("note_00000000edt3")
    assert note is not None
    assert (note.content, note.importance) == ("Lumen deploys on Thursdays", 0.7)


def test_a_text_both_tabs_changed_is_shown_as_a_conflict_to_pick(
    page: Page, page_watch: PageWatch, sign_in: Any, curator: Any
) -> None:
    add_note("note_00000000edt4", "Lumen deploys on Fridays", importance=0.6)
    sign_in(curator)
    tab_b = _two_tabs(page, page_watch, "note_00000000edt4")
    page.get_by_label("Content").fill("Lumen deploys every day")  # tab A
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("status")).to_contain_text("Saved.")

    page_watch.expect(409, "/notes/note_00000000edt4/edit/")
    tab_b.get_by_label("Content").fill("Lumen deploys on Thursdays")  # tab B: text and
    tab_b.get_by_role("spinbutton", name="Importance").fill("0.9")  # importance
    tab_b.get_by_role("button", name="Save", exact=True).click()
    conflict = tab_b.get_by_role("group", name="The text")
    expect(conflict).to_contain_text("Yours: Lumen deploys on Thursdays")
    expect(conflict).to_contain_text("The store's: Lumen deploys every day")
    SHOTS.mkdir(exist_ok=True)
    tab_b.screenshot(path=str(SHOTS / "stale-edit-conflict.png"), full_page=True)
    conflict.get_by_label("The store's").check()
    tab_b.get_by_role("button", name="Save my version over this one").click()
    expect(tab_b.get_by_role("status")).to_contain_text("Saved.")
    note = notes_store().note("note_00000000edt4")
    assert note is not None
    assert (note.content, note.importance) == ("Lumen deploys every day", 0.9)
