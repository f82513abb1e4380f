"""Semantic search in the browser."""

import os
from typing import Any

from playwright.sync_api import Page, expect

from tests.helpers import add_note, plant_note, read_model_caught_up


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


def test_search_says_how_many_notes_it_could_not_compare_and_lists_them(
    page: Page, sign_in: Any, viewer: Any
) -> None:
    add_note("note_00000000src1", "Lumen keeps its vectors in MongoDB")
    add_note("note_00000000src2", "Priya reviews pull requests on Fridays")
    plant_note("note_00000000nov1", content="Tailscale times out after 5 seconds", embedding=[])
    plant_note("note_00000000nov2", content="The garden needs water", embedding=[])
    read_model_caught_up()
    sign_in(viewer)
    page.goto("/search/")
    page.get_by_role("textbox", name="Search").fill("where does Lumen keep vectors")
    page.get_by_role("button", name="Search").click()
    said = page.locator("#search-results p.muted").first
    expect(said).to_contain_text("2 notes compared")
    expect(said).to_contain_text("2 notes have no vector (stored without one)")
    shots = os.environ.get("QQ_TEST_SCREENSHOTS")
    if shots:
        page.screenshot(path=f"{shots}/search-without-vector.png", full_page=True)
    page.get_by_role("link", name="2 notes have no vector").click()
    rows = page.locator("#notes-table tbody tr")
    expect(rows).to_have_count(2)
    expect(page.locator("#notes-table")).to_contain_text("note_00000000nov1")
