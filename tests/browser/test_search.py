"""Semantic search in the browser."""

from typing import Any

from playwright.sync_api import Page, expect

from tests.helpers import add_note


def test_semantic_search_ranks_the_closest_note_first(
    page: Page, sign_in: Any, viewer: Any
) -> None:
    add_note("note_00000000src1", "Lumen keeps its vectors in MongoDB")
    add_note("note_00000000src2", "Priya reviews pull requests on Fridays")
    add_note("note_00000000src3", "The garden needs water in the evening")
    sign_in(viewer)
    page.goto("/search/")
    page.get_by_role("textbox", name="Search").fill("where does Lumen keep vectors")
    page.get_by_role("button", name="Search").click()
    results = page.locator("#search-results ol.results li")
    expect(results.first).to_contain_text("Lumen keeps its vectors in MongoDB")
    expect(page.locator("#search-results")).to_contain_text("notes compared")
