"""Memory tests in the browser: a curator pins a note from the retrieval preview, opens
the Memory tests page, runs the tests (a job in the real worker, whose progress the page
polls) and sees the pin pass; once the note is archived the next run fails it with the
reason."""

import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from memory_app.notes.stores import core_notes
from tests.helpers import plant_note

SHOTS = Path(tempfile.gettempdir()) / "qqweb-browser-shots"
LUMEN = "Lumen stores its notes in MongoDB with embeddings"
NOTE = "note_lumen00001"
WORKER_WAIT = 60_000  # the worker on a loaded 2-core machine; a wait ends once met


@pytest.fixture
def worker_memory(dev_broker_worker: dict[str, str]) -> Iterator[Path]:
    """The worker's memory directory (this test writes a core note there), emptied after."""
    memory = Path(dev_broker_worker["MEMORY_DIR"])
    yield memory
    for path in memory.iterdir():
        if path.is_file():
            path.unlink()


def test_pin_from_the_retrieval_preview_then_see_the_memory_tests_pass(
    page: Page, sign_in: Any, curator: Any, worker_memory: Path
) -> None:
    plant_note(NOTE, content=LUMEN)
    plant_note("note_tea0000001", content="Ada prefers tea in the morning")
    core_notes().add_core("The user is called Ada", "Identity")
    sign_in(curator)
    page.goto("/retrieval/")
    page.locator("textarea[name=message]").fill("Where does Lumen store its notes?")
    page.get_by_role("button", name="Preview").click()
    cited = page.locator("#retrieval-preview li", has_text=LUMEN)
    expect(cited).to_be_visible()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "retrieval-pin-this.png"), full_page=True)
    cited.get_by_role("button", name="Pin this").click()
    expect(page.locator("#messages")).to_contain_text(f"→ {NOTE}")
    expect(page.locator("#message-undo")).to_be_visible()
    # back on the preview of the same message
    expect(page.locator("#retrieval-preview")).to_contain_text(LUMEN)

    page.get_by_role("link", name="Memory tests").click()
    expect(page.locator("#pins-table tr[data-status='not run']")).to_have_count(1)
    page.locator("#memory-tests-run").click()
    expect(page.locator("#memory-tests-job")).to_contain_text("Running the memory tests")
    page.screenshot(path=str(SHOTS / "memory-tests-running.png"), full_page=True)
    expect(page.locator("#memory-tests-verdict")).to_contain_text("all 1 pass", timeout=WORKER_WAIT)
    expect(page.locator("#memory-tests-job")).to_have_count(0)
    expect(page.locator("#pins-table tr[data-status='pass']")).to_contain_text(LUMEN)
    # "scores 0.88" alone, or after what the cell says and a dot: never run into it
    expect(page.locator("#pins-table tr[data-status='pass'] td.long")).to_have_text(
        re.compile(r"^\s*(?:.*\S · )?scores \d\.\d\d\s*$")
    )
    expect(page.locator("#memory-tests-sources tr[data-source='notes']")).to_contain_text("1.00")
    page.locator("#memory-tests-run").click()  # a second run: the history has two points
    expect(page.locator(".history-chart circle")).to_have_count(4, timeout=WORKER_WAIT)
    page.screenshot(path=str(SHOTS / "memory-tests-pass.png"), full_page=True)

    page.goto(f"/notes/{NOTE}/")
    page.locator("form[action$='/archive/'] button.danger").click()
    # the note's pin passes: the archive names it first, then archives all the same
    expect(page.locator("#plan-pins-lost")).to_contain_text("Archiving this note loses 1 of 1")
    page.locator("#pins-confirm-yes").click()
    expect(page.locator("#messages")).to_contain_text("rchived")
    page.goto("/memory-tests/")
    page.locator("#memory-tests-run").click()
    expect(page.locator("#memory-tests-verdict")).to_contain_text(
        "1 of 1 fail", timeout=WORKER_WAIT
    )
    expect(page.locator("#pins-table tr[data-status='fail']")).to_contain_text("archived on ")
    page.screenshot(path=str(SHOTS / "memory-tests-fail.png"), full_page=True)
