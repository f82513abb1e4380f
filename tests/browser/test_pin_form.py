"""The "Pin a recall" form: its Memory menu starts on the notes (or the memory the
curator came from), and a refused pin says why in the form, keeping what was typed."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, expect

from qqweb.recall.models import Pin
from tests.browser.watch import PageWatch
from tests.browser.words import assert_reads_as_words, shot
from tests.helpers import plant_note
from tests.memory_app.facts.conftest import facts_store

__all__ = ["facts_store"]  # the facts tests' fixture: the Memory menu lists the facts too

QUESTION = "Where does Lumen keep its notes?"


def test_a_refused_pin_says_why_in_the_form_and_keeps_what_was_typed(
    page: Page, page_watch: PageWatch, sign_in: Any, curator: Any, facts_store: Any
) -> None:
    plant_note("note_lumen000001", content="Lumen stores its notes in MongoDB")
    sign_in(curator)
    page.goto("/memory-tests/")
    form = page.locator("#pin-form")
    expect(form.get_by_label("Memory")).to_have_value("notes")  # not the facts

    form.get_by_label("Question").fill(QUESTION)
    form.get_by_label("Must recall").fill("note_nosuchnote01")
    form.get_by_label("Comment").fill("where the notes live")
    page_watch.expect(400, "/memory-tests/pin/")
    form.get_by_role("button", name="Pin").click()

    expect(page.locator("#pin-error")).to_contain_text("Not pinned:")
    expect(page.locator("#pin-error")).to_contain_text("note_nosuchnote01")
    expect(form.get_by_label("Question")).to_have_value(QUESTION)
    expect(form.get_by_label("Must recall")).to_have_value("note_nosuchnote01")
    expect(form.get_by_label("Comment")).to_have_value("where the notes live")
    assert not Pin.objects.exists()
    assert_reads_as_words(page.locator("#pin-error"))
    shot(page, "pin-refused-in-form")

    form.get_by_label("Must recall").fill("note_lumen000001")
    form.get_by_role("button", name="Pin").click()
    expect(page.locator("#messages")).to_contain_text(f"Pinned: “{QUESTION}” → note_lumen000001.")
    page.goto("/memory-tests/?source=facts")
    expect(page.locator("#pin-form").get_by_label("Memory")).to_have_value("facts")


def test_a_pin_on_a_note_without_a_vector_is_refused_saying_no_search_can_recall_it(
    page: Page, page_watch: PageWatch, sign_in: Any, curator: Any
) -> None:
    plant_note("note_novector01", content="Lumen stores its notes in MongoDB", embedding=[])
    sign_in(curator)
    page.goto("/memory-tests/")
    form = page.locator("#pin-form")
    form.get_by_label("Question").fill(QUESTION)
    form.get_by_label("Must recall").fill("note_novector01")
    page_watch.expect(400, "/memory-tests/pin/")
    form.get_by_role("button", name="Pin").click()

    error = page.locator("#pin-error")
    expect(error).to_contain_text("this note has no vector yet, so no search can recall it")
    expect(form.get_by_label("Must recall")).to_have_value("note_novector01")
    assert not Pin.objects.exists()
    assert_reads_as_words(error)
    shot(page, "pin-refused-no-vector")
