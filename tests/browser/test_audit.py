"""The Audit page: actions picked from a list, pages, batches and undoing a whole batch."""

import re
from typing import Any

from playwright.sync_api import Page, expect

from memory_app.notes.stores import notes_store
from tests.helpers import add_note


def test_a_bulk_archive_is_one_batch_that_pages_and_undoes_as_one(
    page: Page, sign_in: Any, curator: Any
) -> None:
    for i in range(55):
        add_note(f"note_{i:012d}", f"Ordinary note number {i} about the garden")
    sign_in(curator)
    page.goto("/notes/")
    page.get_by_label("Scope").select_option("matching")
    page.get_by_role("button", name="Apply…").click()
    page.get_by_role("button", name="Yes, apply to 55").click()
    expect(page.get_by_role("status")).to_contain_text("Archived 55 notes.", timeout=30_000)

    page.goto("/audit/")
    page.get_by_label("Action").select_option("note.archive")
    expect(page).to_have_url(re.compile(r"action=note\.archive"))  # the filter has answered
    rows = page.locator("#audit-table tbody tr")
    expect(rows).to_have_count(50)
    page.get_by_role("link", name="Older »").click()
    expect(rows).to_have_count(5)
    rows.first.get_by_role("link", name="55 actions").click()
    page.get_by_role("button", name="Undo the whole batch").click()
    expect(page.get_by_role("status").first).to_contain_text("Undid 55 changes.", timeout=30_000)
    assert notes_store().note("note_000000000054") is not None
