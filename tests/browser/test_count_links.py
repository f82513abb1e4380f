"""Numbers that link, walked in the browser: the Overview's "(no source)" count, its
Archive card's reason count, the Archive page's month count, the graph's relationship
type count and the Audit log's target each open exactly what they count. Screenshots go
to the temporary folder's qqweb-browser-shots."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from graph_app.stores import graph_store
from memory_app.notes.services import note_archive
from memory_app.notes.stores import archive_manager
from qqweb.lib.actors import Actor
from tests.helpers import agent_archive_line, plant_note, read_model_caught_up

SHOTS = Path(tempfile.gettempdir()) / "qqweb-browser-shots"
ADA = Actor("user", "ada-admin")


def _shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / name), full_page=True)


def test_the_counts_open_exactly_what_they_count(
    page: Page, sign_in: Any, admin_user: Any, stores: Any
) -> None:
    plant_note("note_00000000bw01", source={"source_type": "file", "file_path": "/a.py"})
    plant_note("note_00000000bw02")  # no source
    plant_note("note_00000000bw03")  # no source
    plant_note("note_00000000bw04", importance=0.02, days_old=300)
    note_archive(actor=ADA, note_id="note_00000000bw04")
    archive_manager().append_entries(
        [agent_archive_line(f"note_00000000bl0{i}", 40 * i) for i in range(1, 4)]
    )
    store = graph_store()
    store.merge_entities("Project", [{"name": "Lumen", "props": {}}])
    store.merge_entities("Person", [{"name": f"Person {i}", "props": {}} for i in range(3)])
    store.merge_relationships(
        "Person",
        "WORKS_ON",
        "Project",
        [{"a": f"Person {i}", "b": "Lumen", "props": {}} for i in range(3)],
    )
    read_model_caught_up()
    sign_in(admin_user)

    page.goto("/")
    _shot(page, "count-links-overview.png")
    page.locator("#sources-card td.num a").filter(has_text="2").click()
    expect(page).to_have_url(re.compile(r"/notes/\?no_source=on$"))
    expect(page.locator("#notes-table tbody tr")).to_have_count(2)
    expect(page.locator("#notes-table .list-position").first).to_contain_text("of 2")
    page.go_back()

    page.locator("#archive-card dt", has_text="low importance").locator("+ dd a").click()
    expect(page.locator("#archive-matching")).to_contain_text("3 lines")
    expect(page.locator("#archive-table tbody tr")).to_have_count(3)
    _shot(page, "count-links-archive-reason.png")

    month = page.locator("#archive-by-month td.num a").first
    count = int(month.inner_text())
    month.click()
    expect(page.locator("#archive-matching")).to_contain_text(f"{count} line")
    expect(page.locator("#archive-table tbody tr")).to_have_count(count)

    page.goto("/graph/")
    page.locator("#graph-by-type td.num a").first.click()
    expect(page.locator("#relationships-table tbody tr")).to_have_count(3)
    expect(page.locator("#relationships-table .list-position")).to_contain_text("of 3")
    _shot(page, "count-links-relationships.png")

    page.goto("/audit/")
    target = page.locator("td.audit-target", has_text="note_00000000bw04")
    expect(target).to_contain_text("(archived)")
    _shot(page, "count-links-audit.png")
    target.get_by_role("link").click()
    expect(page.locator("#archive-table")).to_contain_text("note_00000000bw04")
