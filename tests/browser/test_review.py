"""The duplicate review in the browser: a scan through the real worker on the broker
``make dev`` uses, then a merge."""

from typing import Any

from playwright.sync_api import Page, expect

from memory_app.stores import notes_store
from tests.helpers import add_note


def test_a_scan_runs_in_the_worker_and_its_pair_can_be_merged(
    page: Page, sign_in: Any, admin_user: Any, dev_broker_worker: dict[str, str]
) -> None:
    add_note("note_0000000000d1", "Lumen uses MongoDB for vector search now")
    add_note("note_0000000000d2", "Lumen uses MongoDB for vector search now!")
    add_note("note_0000000000d3", "Priya reviews pull requests on Fridays")
    sign_in(admin_user)
    page.goto("/review/")
    expect(page.get_by_text("The queue is empty.")).to_be_visible()
    page.get_by_label("Threshold").fill("0.9")
    page.get_by_role("button", name="Scan for duplicates").click()
    # The page polls the run and reloads itself when the worker is done.
    expect(page.locator("#scan-progress")).to_contain_text("done", timeout=60_000)
    expect(page.locator("#scan-progress")).to_contain_text("1 new")
    expect(page.get_by_text("1 pair left")).to_be_visible()

    page.get_by_role("button", name="Merge", exact=True).click()
    expect(page.get_by_text("The queue is empty.")).to_be_visible()
    store = notes_store()
    assert [store.note(i) is None for i in ("note_0000000000d1", "note_0000000000d2")].count(
        True
    ) == 1
