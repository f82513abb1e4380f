"""A pinned recall guards a fact's Delete… in the browser: the preview names the pin the
deletion would lose above its confirm button, and a delete the curator confirms anyway
archives the fact. Screenshots go to ``QQ_TEST_SCREENSHOTS`` when set."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from memory_app.facts.lib import FactsStore
from memory_app.facts.models import ArchivedFact
from qqweb.lib.actors import Actor
from qqweb.lib.embeddings import Embedder
from qqweb.recall.services import pin_create
from tests.browser.words import assert_reads_as_words
from tests.memory_app.facts.conftest import agent_model, agent_writes, facts_store

__all__ = ["agent_model", "facts_store"]  # fixtures of the facts tests

PORT = "The TTS server listens on port 9000."
QUESTION = "Which port does the TTS server listen on?"


def _shot(page: Page, name: str) -> None:
    folder = os.environ.get("QQ_TEST_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)


def test_deleting_a_pinned_fact_names_the_pin_before_the_confirm_button(
    page: Page, sign_in: Any, curator: Any, facts_store: FactsStore, agent_model: Embedder
) -> None:
    fact = str(agent_writes(facts_store, agent_model, PORT, days_ago=2))
    agent_writes(facts_store, agent_model, "The user likes green tea.", days_ago=3)
    pin_create(
        actor=Actor("user", "ada", role="curator"), query=QUESTION, item_id=fact, source="facts"
    )
    sign_in(curator)
    page.goto(f"/facts/{fact}/")
    page.locator('button[data-action="delete"]').click()

    warning = page.locator("#write-pins-lost")
    expect(warning).to_contain_text("This deletion loses 1 of 1 pinned recall:")
    expect(warning).to_contain_text(QUESTION)
    expect(warning).to_contain_text("archived by this deletion")
    expect(warning.locator("li")).to_contain_text(f"“{QUESTION}” → {PORT}")
    assert_reads_as_words(warning, ids=[fact])  # the fact by its text, its id small
    confirm = page.locator("#write-confirm")
    expect(confirm).to_be_visible()
    warning_box, confirm_box = warning.bounding_box(), confirm.bounding_box()
    assert warning_box is not None and confirm_box is not None
    assert warning_box["y"] < confirm_box["y"]  # read before the button
    _shot(page, "facts-delete-pin-warning")
    assert facts_store.get(fact).hex_id == fact  # the preview deleted nothing

    page.locator("#write-cancel").click()  # Cancel closes the preview, deletes nothing
    expect(confirm).to_have_count(0)
    assert facts_store.get(fact).hex_id == fact
    page.locator('button[data-action="delete"]').click()
    confirm = page.locator("#write-confirm")

    confirm.click()
    expect(page.locator(".messages, [role=status]").first).to_contain_text("done")
    assert ArchivedFact.objects.filter(fact_id=fact).exists()
