"""The Core page: a promotion candidate is offered with a category that fits it (or asks
to choose one), and a working note is edited in a box that shows it whole. Screenshots go
to ``QQ_TEST_SCREENSHOTS`` when set."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from memory_app.notes.stores import core_notes, notes_store, working_notes

LONG_NOTE = (
    "Waiting on Nadia Kowalski to review the tidepool pull request about tracing, then "
    "merge it before the Friday release and tell the team in the channel"
)


def _candidate(note_id: str, content: str, section: str = "Key Topics") -> None:
    """A note the Core page proposes: important and read often."""
    notes_store().upsert_note(note_id, content, [], section, importance=0.9)
    notes_store().collection.update_one({"note_id": note_id}, {"$set": {"access_count": 5}})


def test_a_candidate_is_offered_with_a_fitting_category_or_asks_to_choose(
    page: Page, sign_in: Any, curator: Any
) -> None:
    _candidate("note_0000000core1", "Tailscale is configured with a 5 second timeout")
    _candidate("note_0000000core2", "Quarterly figures arrive on the third Monday")
    sign_in(curator)
    page.goto("/core/")
    rows = page.locator("#core-candidates tbody tr")
    tailscale = rows.filter(has_text="Tailscale")
    expect(tailscale.get_by_label("Category")).to_have_value("System")
    figures = rows.filter(has_text="Quarterly figures")
    expect(figures.get_by_label("Category")).to_have_value("")  # "Choose…"
    _screenshot(page, "core-candidates")

    figures.get_by_role("button", name="Promote").click()  # nothing chosen: not sent
    assert page.evaluate("document.querySelector('#core-candidates select:invalid') !== null")
    assert core_notes().get_all_items()["Identity"] == []
    figures.get_by_label("Category").select_option("Projects")
    figures.get_by_role("button", name="Promote").click()
    expect(page.get_by_role("status")).to_contain_text("Promoted to core.md under Projects.")
    projects = core_notes().get_all_items()["Projects"]
    assert "Quarterly figures arrive on the third Monday" in projects

    page.locator("#core-candidates tbody tr").filter(has_text="Tailscale").get_by_role(
        "button", name="Promote"
    ).click()
    expect(page.get_by_role("status")).to_contain_text("Promoted to core.md under System.")


def test_a_working_note_is_edited_in_a_box_that_shows_it_whole(
    page: Page, sign_in: Any, curator: Any
) -> None:
    working_notes().add_note("Ongoing Threads", LONG_NOTE)
    sign_in(curator)
    page.goto("/core/")
    box = page.get_by_label(f"Edit {LONG_NOTE}")
    expect(box).to_have_value(LONG_NOTE)
    width = box.bounding_box()
    assert width is not None and width["width"] > 400  # the card's width, not ~170 px
    hidden = box.evaluate("b => b.scrollHeight > b.clientHeight || b.scrollWidth > b.clientWidth")
    assert not hidden, "the note's text is cut off"
    _screenshot(page, "core-working-notes")
    box.fill(LONG_NOTE.replace("Friday", "Thursday"))
    box.locator("xpath=..").get_by_role("button", name="save").click()
    expect(page.get_by_role("status")).to_contain_text("Saved")
    assert (
        LONG_NOTE.replace("Friday", "Thursday")
        in working_notes().get_all_items()["Ongoing Threads"]
    )


def _screenshot(page: Page, name: str) -> None:
    folder = os.environ.get("QQ_TEST_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)
