"""The duplicate review in the browser: a scan through the real worker on the broker
``make dev`` uses, then a merge; "keep the newer text", and a merge undone from the
message's Undo button."""

import tempfile
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from memory_app.notes.services import duplicates_scan
from memory_app.notes.stores import notes_store
from qqweb.jobs.runs import run_create
from qqweb.lib.actors import Actor
from tests.helpers import add_note, plant_note, vector


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


# The demo's first pair: a newer value of one fact (a date), both on one vector (1.0), so it
# comes first; then two copies that differ by a detail only (0.86): a plain duplicate.
OLD, NEW = "note_0000000000a1", "note_0000000000a2"
TWIN, TWIN_LONG = "note_0000000000b1", "note_0000000000b2"


def _queue_two_pairs() -> None:
    same = vector("Deadline for the Lumen beta is 2027-02-01")
    plant_note(OLD, 0.6, 40, embedding=same, content="Deadline for the Lumen beta is 2027-01-10")
    plant_note(NEW, 0.4, 2, embedding=same, content="Deadline for the Lumen beta is 2027-02-01")
    plant_note(TWIN, 0.5, 10, content="Priya reviews pull requests on Fridays")
    plant_note(TWIN_LONG, 0.5, 5, content="Priya reviews pull requests on Fridays after lunch")
    run = run_create(kind="dedup_scan", actor=Actor("user", "ada-admin"), params={})
    assert duplicates_scan(run=run, threshold=0.85)["queued"] == 2


def test_keep_the_newer_text_then_a_merge_whose_undo_puts_its_pair_back_in_the_queue(
    page: Page, sign_in: Any, curator: Any
) -> None:
    _queue_two_pairs()
    sign_in(curator)
    page.goto("/review/")
    expect(page.get_by_text("2 pairs left")).to_be_visible()
    expect(page.locator("#possible-update")).to_contain_text("2027-01-10")
    expect(page.locator(f'.side[data-note-id="{NEW}"]')).to_contain_text("newer")
    page.locator("#verdict-supersede").click()
    expect(page.locator("#messages")).to_contain_text("Kept the newer text")

    expect(page.get_by_text("1 pair left")).to_be_visible()
    expect(page.locator("#possible-update")).to_have_count(0)
    twins = page.locator("#review-status").get_attribute("data-pair-id")
    page.locator("#verdict-merge").click()
    expect(page.locator("#review-empty")).to_contain_text("The queue is empty.")
    store = notes_store()
    assert [store.note(i) is None for i in (TWIN, TWIN_LONG)].count(True) == 1

    page.locator("#message-undo").click()
    expect(page.get_by_text("1 pair left")).to_be_visible()
    expect(page.locator("#review-status")).to_have_attribute("data-pair-id", twins or "")
    assert store.note(TWIN) is not None and store.note(TWIN_LONG) is not None
    # the supersede stands: the older date stays in the archive
    assert store.note(OLD) is None and store.note(NEW) is not None


def test_a_contradiction_waits_for_a_chosen_note_before_a_merge(
    page: Page, sign_in: Any, curator: Any
) -> None:
    same = vector("The nightly backup of the NAS runs with encryption")
    plant_note(
        OLD, 0.7, 30, embedding=same, content="The nightly backup of the NAS runs with encryption"
    )
    plant_note(
        NEW, 0.4, 1, embedding=same, content="The nightly backup of the NAS runs without encryption"
    )
    run = run_create(kind="dedup_scan", actor=Actor("user", "ada-admin"), params={})
    assert duplicates_scan(run=run, threshold=0.85)["queued"] == 1
    sign_in(curator)
    page.goto("/review/")
    expect(page.locator("#possible-update")).to_contain_text("contradiction")
    expect(page.locator("#possible-update")).to_contain_text("without encryption")
    expect(page.locator("#verdict-form button").first).to_have_text("Not a duplicate")
    page.keyboard.press("m")  # the merge shortcut: the form asks for a note to keep first
    expect(page.get_by_text("1 pair left")).to_be_visible()
    assert notes_store().note(OLD) is not None and notes_store().note(NEW) is not None

    page.get_by_label("the second note").check()
    expect(page.locator("#merge-preview")).to_contain_text(NEW)
    page.locator("#verdict-merge").click()
    expect(page.locator("#messages")).to_contain_text(f"Merged; {NEW} kept.")
    assert notes_store().note(OLD) is None and notes_store().note(NEW) is not None


SHOTS = Path(tempfile.gettempdir()) / "qqweb-browser-shots"
PAIRS = {  # the verdict each pair gets: (older text, newer text)
    "update": (
        "Deadline for the Lumen beta is 2027-01-10",
        "Deadline for the Lumen beta is 2027-02-01",
    ),
    "right_more": (
        "Priya reviews pull requests on Fridays",
        "Priya reviews pull requests on Fridays after lunch",
    ),
    "each_more": (
        "Ada moved to Berlin in May. She works at Acme.",
        "Ada moved to Berlin in May. She has two cats.",
    ),
    "same": (
        "Lumen uses MongoDB for vector search now",
        "Lumen uses MongoDB for vector search now!",
    ),
    "different": ("Ada's favourite film is Alien.", "Ada's favourite book is Alien."),
    "contradiction": ("Tom has visited Paris.", "Tom has yet to visit Paris."),
}
WORDS = {
    "update": "possible update: date: 2027-01-10 → 2027-02-01",
    "right_more": "the newer note says more: “after lunch”",
    "each_more": "each says something the other does not",
    "same": "same fact",
    "different": "different facts",
    "contradiction": "contradiction: the texts say opposite things",
}


def test_each_verdict_is_said_in_words_and_a_merge_keeps_both_details(
    page: Page, sign_in: Any, curator: Any
) -> None:
    """Six pairs, each on one vector (the scan queues them at 1.0): the Review page says
    each one's verdict in words; the pair where each note adds a detail is merged with the
    text the page offers, which keeps both."""
    ids = {}
    for n, (kind, (old, new)) in enumerate(PAIRS.items()):
        ids[kind] = (f"note_00000000e{n:03x}", f"note_00000000f{n:03x}")
        same = vector(new)
        plant_note(ids[kind][0], 0.6, 40, embedding=same, content=old)
        plant_note(ids[kind][1], 0.4, 2, embedding=same, content=new)
    run = run_create(kind="dedup_scan", actor=Actor("user", "ada-admin"), params={})
    assert duplicates_scan(run=run, threshold=0.85)["judged"] == len(PAIRS)
    SHOTS.mkdir(exist_ok=True)
    sign_in(curator)
    page.goto("/review/")
    verdict, status = page.locator("#verdict"), page.locator("#review-status")
    both = "Ada moved to Berlin in May. She works at Acme. She has two cats."
    said: dict[str, str] = {}
    for _ in PAIRS:  # in the queue's order (all at 1.0)
        expect(verdict).to_be_visible()
        kind = verdict.get_attribute("data-verdict") or ""
        said[kind] = verdict.inner_text()
        page.screenshot(path=str(SHOTS / f"review-verdict-{kind}.png"), full_page=True)
        shown = status.get_attribute("data-pair-id") or ""
        if kind == "right_more":
            expect(page.locator("#merge-preview")).to_contain_text(f"kept: {ids[kind][1]}")
        if kind == "each_more":
            expect(page.locator("textarea[name=content]")).to_have_value(both)
            expect(page.locator("#merge-preview")).to_contain_text(both)
            page.locator("#verdict-merge").click()
            expect(page.locator("#messages")).to_contain_text("Merged")
        else:
            page.keyboard.press("s")
        expect(page.locator(f'#review-status[data-pair-id="{shown}"]')).to_have_count(0)
    assert set(said) == set(PAIRS)
    for kind, words in WORDS.items():
        assert words in said[kind], (kind, said[kind])
    kept = [notes_store().note(i) for i in ids["each_more"]]
    [survivor] = [n for n in kept if n is not None]
    assert "works at Acme" in survivor.content and "two cats" in survivor.content
