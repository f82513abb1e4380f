"""The Overview's numbers and bars open the lists they count."""

import re
from typing import Any

from playwright.sync_api import Page, expect

from tests.helpers import add_note


def test_a_section_bar_opens_the_notes_of_that_section(
    page: Page, sign_in: Any, viewer: Any
) -> None:
    add_note("note_00000000ovr1", "Lumen keeps its vectors in MongoDB", section="Key Topics")
    add_note("note_00000000ovr2", "Lumen deploys on Fridays", section="Key Topics")
    add_note("note_00000000ovr3", "Priya likes tea", section="Ongoing Threads")
    sign_in(viewer)
    page.goto("/")
    page.locator("#notes-card").get_by_role("link", name="Key Topics", exact=True).click()
    expect(page).to_have_url(re.compile(r"/notes/\?section=Key(\+|%20)Topics$"))
    expect(page.locator("#notes-table tbody tr")).to_have_count(2)
    page.go_back()
    page.locator("#notes-card h2").get_by_role("link", name="3", exact=True).click()
    expect(page.locator("#notes-table tbody tr")).to_have_count(3)
