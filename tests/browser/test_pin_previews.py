"""The pin preview in the browser, on the writes that had none: a note page's "Archive
this note", an undo that archives a restored note again, and the purge's count-first
dialog each name the pinned recall they would lose, with a Cancel, before they write.
Screenshots go to ``QQ_TEST_SCREENSHOTS`` when set."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, expect

from memory_app.notes import services
from memory_app.notes.stores import archive_manager, notes_store
from qqweb.lib.actors import Actor
from qqweb.recall.services import pin_create
from tests.browser.words import assert_reads_as_words, shot
from tests.helpers import agent_archive_line, plant_note

LUMEN = "Lumen stores its notes in MongoDB with embeddings"
PINNED = "note_lumen000001"
ADA = Actor("user", "ada-admin", role="admin")


def _pinned_note() -> None:
    plant_note(PINNED, importance=0.6, days_old=0, content=LUMEN)
    plant_note("note_tea00000001", importance=0.9, days_old=0, content="Ada likes green tea")
    pin_create(actor=ADA, query=LUMEN, item_id=PINNED, comment="where the notes live")


def test_archiving_a_pinned_note_from_its_page_names_the_pin_first_and_cancel_keeps_it(
    page: Page, sign_in: Any, admin_user: Any
) -> None:
    _pinned_note()
    sign_in(admin_user)
    page.goto(f"/notes/{PINNED}/")
    page.locator("#note-archive").click()

    warning = page.locator("#plan-pins-lost")
    expect(warning).to_contain_text("Archiving this note loses 1 of 1 pinned recall:")
    expect(warning.locator("li")).to_contain_text(f"“{LUMEN}” → {LUMEN}")
    expect(warning.locator("li a.pinned-item")).to_have_attribute("href", f"/notes/{PINNED}/")
    expect(warning.locator("li")).to_contain_text("archived by this archive")
    expect(page.locator("#pins-confirm-yes")).to_have_text("Archive it all the same")
    expect(page.locator("#pins-confirm h1")).to_have_text("Archive this note?")
    assert_reads_as_words(page.locator("#pins-confirm"), ids=[PINNED])
    shot(page, "note-archive-pin-preview")
    assert notes_store().get_note(PINNED) is not None  # asked, nothing written

    page.locator("#pins-confirm-cancel").click()
    expect(page).to_have_url(f"/notes/{PINNED}/")
    assert notes_store().get_note(PINNED) is not None

    page.locator("#note-archive").click()
    page.locator("#pins-confirm-yes").click()
    expect(page.locator("#messages")).to_contain_text(f"Archived {PINNED}.")
    assert notes_store().get_note(PINNED) is None


def test_undoing_a_restore_of_a_pinned_note_names_the_pin_it_would_lose_first(
    page: Page, sign_in: Any, admin_user: Any
) -> None:
    _pinned_note()
    services.note_archive(actor=ADA, note_id=PINNED)
    services.archive_restore_many(actor=ADA, note_ids=[PINNED])
    sign_in(admin_user)
    page.goto("/audit/?action=note.restore")
    page.get_by_role("button", name="Undo", exact=True).first.click()

    warning = page.locator("#plan-pins-lost")
    expect(warning).to_contain_text("This undo loses 1 of 1 pinned recall:")
    expect(warning.locator("li")).to_contain_text("archived again by this undo")
    assert_reads_as_words(page.locator("#pins-confirm"), ids=[PINNED])
    shot(page, "undo-restore-pin-preview")
    assert notes_store().get_note(PINNED) is not None

    page.locator("#pins-confirm-yes").click()
    expect(page.locator("#messages")).to_contain_text("Undone.")
    assert notes_store().get_note(PINNED) is None


def test_the_purge_dialog_shows_the_lines_texts_the_pin_it_loses_and_a_cancel(
    page: Page, sign_in: Any, admin_user: Any
) -> None:
    """A pinned note merged away 200 days ago is recalled through the note that kept its
    text, by its archive line, which a purge of lines older than 90 days drops."""
    plant_note("note_lumen000002", importance=0.7, days_old=1, content=LUMEN)
    plant_note(PINNED, importance=0.4, days_old=1, content=LUMEN + " too")
    pin_create(actor=ADA, query=LUMEN, item_id=PINNED)
    notes_store().collection.delete_one({"note_id": PINNED})
    reason = "Consolidated with note_lumen000002 (similarity: 0.95)"
    archive_manager().append_entries([agent_archive_line(PINNED, 200, reason=reason)])
    sign_in(admin_user)
    page.goto("/archive/")
    page.locator("#purge-days").fill("90")
    page.locator("#purge-count").click()

    dialog = page.locator("#purge-dialog")
    expect(dialog).to_contain_text("1 line archived more than 90 days ago would be dropped")
    expect(dialog.locator("#plan-pins-lost")).to_contain_text(
        "This purge loses 1 of 1 pinned recall:"
    )
    expect(dialog.locator(f'#purge-lines li[data-note-id="{PINNED}"]')).to_contain_text(
        "Consolidated with note_lumen000002"
    )
    expect(dialog.locator("#purge-confirm")).to_have_text("Purge 1 line")
    assert_reads_as_words(dialog)
    assert_reads_as_words(dialog.locator("#plan-pins-lost"), ids=[PINNED, "note_lumen000002"])
    shot(page, "purge-pin-preview")

    dialog.locator("#purge-cancel").click()
    expect(dialog.locator("#purge-confirm")).to_have_count(0)
    assert archive_manager().find_line(PINNED) is not None
