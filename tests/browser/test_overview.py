"""The Overview's numbers and bars open the lists they count."""

import os
import re
from datetime import datetime
from typing import Any

from playwright.sync_api import Page, expect

from tests.helpers import add_note, plant_note, read_model_caught_up
from tests.memory_app.facts.conftest import facts_store

__all__ = ["facts_store"]  # the facts tests' fixture: a fresh facts collection


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


def test_the_pictures_and_counts_open_the_notes_they_count(
    page: Page, sign_in: Any, viewer: Any, facts_store: Any
) -> None:
    plant_note("note_00000000pic1", importance=0.15, days_old=2)
    plant_note("note_00000000pic2", importance=0.15, days_old=9)
    plant_note("note_00000000pic3", importance=0.2, days_old=9)  # the next bar: [0.2, 0.3)
    plant_note("note_00000000pic4", importance=0.95, days_old=1)
    plant_note("note_00000000pic5", importance=0.3, days_old=400)  # faded: would be archived
    plant_note("note_00000000pic6", importance=0.02, days_old=60)
    read_model_caught_up()
    facts_store.collection.insert_many(
        [
            {"type": "fact", "content": "Priya likes tea", "timestamp": datetime(2026, 1, 5)},
            {"user_input": "hi", "llm_response": "hello", "timestamp": datetime(2025, 6, 1)},
        ]
    )
    sign_in(viewer)
    page.goto("/")
    rows = page.locator("#notes-table tbody tr")
    shots = os.environ.get("QQ_TEST_SCREENSHOTS")
    if shots:
        page.screenshot(path=f"{shots}/overview-links.png", full_page=True)

    page.locator("#importance-card").get_by_role("link", name="0.1: 2 notes").click()
    expect(page).to_have_url(re.compile(r"min_importance=0\.1&importance_below=0\.2"))
    expect(rows).to_have_count(2)
    expect(page.get_by_label("Importance below")).to_have_value("0.2")
    page.go_back()

    archived = page.locator("#would-archive")
    expect(archived).to_contain_text("2 of 6 notes")
    archived.click()
    expect(rows).to_have_count(2)
    expect(page.locator("#notes-table")).to_contain_text("note_00000000pic5")
    page.go_back()

    weeks = page.locator("#weeks-card a.bar-link")
    expect(weeks).to_have_count(26)
    weeks.nth(24).click()  # the week before this one: 7 to 14 days ago
    expect(rows).to_have_count(2)
    expect(page.locator("#notes-table")).to_contain_text("note_00000000pic2")
    page.go_back()

    facts = page.locator("#source-facts")
    facts.locator("dt", has_text="legacy conversation turns").locator("+ dd a").click()
    expect(page.locator("#facts-table tbody tr")).to_have_count(1)
    expect(page.get_by_label("Kind")).to_have_value("turn")
