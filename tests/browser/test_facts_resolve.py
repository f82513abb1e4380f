"""The facts "deleted at the next start" review in the browser, at the notes review's
level: a resolve asks in words next to the row it belongs to, Cancel gives the row back
with nothing changed, the row after a resolve says what was done, with an Undo that undoes
it, and the Flags column shows the value a pair's newer fact changes (the agent would delete a
correction, not a copy). The facts are the demo's value-changed pairs, written as the agent
writes them with its own model; screenshots go to ``QQ_TEST_SCREENSHOTS`` when set."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from bson import ObjectId
from playwright.sync_api import Locator, Page, expect

from memory_app.facts.demo_data import NEAR_MISSES, VALUE_CHANGED
from memory_app.facts.lib import FactsStore
from memory_app.facts.models import ArchivedFact
from qqweb.lib.embeddings import Embedder
from tests.memory_app.facts.conftest import agent, agent_model, agent_writes, facts_store
from tests.memory_app.facts.lib.agent_simulator import SimulatedAgent

__all__ = ["agent", "agent_model", "facts_store"]  # fixtures of the facts tests

NEAR = 200  # px: "next to the row's button"


def _plant(store: FactsStore, model: Embedder) -> dict[str, tuple[ObjectId, ObjectId]]:
    """The demo's value-changed pairs, the port pair newest so it is the table's last row
    (the old page showed the confirmation above the table, far from it)."""
    pairs = {}
    for i, (older, newer, _) in enumerate(VALUE_CHANGED):
        days = 60 - 8 * i if "port" not in older else 3
        pairs[older] = (
            agent_writes(store, model, older, days_ago=days),
            agent_writes(store, model, newer, days_ago=days - 1),
        )
    return pairs


def _row(page: Page, pair: tuple[ObjectId, ObjectId]) -> Locator:
    return page.locator(f"#pair-{pair[0]}-{pair[1]}")


def _documents(store: FactsStore) -> list[dict[str, Any]]:
    return list(store.collection.find({}, sort=[("_id", 1)]))


def _shot(page: Page, name: str) -> None:
    folder = os.environ.get("QQ_TEST_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)


def _centre(box: Any) -> tuple[float, float]:
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_the_confirmation_opens_at_the_row_and_cancel_gives_the_row_back(
    page: Page, sign_in: Any, curator: Any, facts_store: FactsStore, agent_model: Embedder
) -> None:
    pairs = _plant(facts_store, agent_model)
    port = pairs["The TTS-Provider service runs on port 9000."]
    before = _documents(facts_store)
    sign_in(curator)
    page.goto("/facts/next-start/")
    row = _row(page, port)
    button = row.locator('button[data-action="keep-older"]')
    button.scroll_into_view_if_needed()
    button_box = button.bounding_box()
    button.click()

    dialog = row.get_by_role("dialog")
    expect(dialog).to_contain_text("Keep the older fact, archive the newer one?")
    expect(dialog).to_contain_text("The newer fact changes a value (port 9000 → port 9100)")
    expect(dialog).not_to_contain_text("Confirm: pair")
    dialog_box = dialog.bounding_box()
    assert button_box is not None and dialog_box is not None
    (bx, by), (dx, dy) = _centre(button_box), _centre(dialog_box)
    assert abs(dx - bx) <= NEAR and abs(dy - by) <= NEAR, (button_box, dialog_box)
    expect(page.get_by_role("dialog")).to_have_count(1)  # the question is in this row only
    _shot(page, "facts-resolve-confirm-at-row")

    dialog.get_by_role("button", name="Cancel").click()
    expect(row.get_by_role("dialog")).to_have_count(0)
    expect(row.locator('button[data-action="keep-older"]')).to_be_visible()
    expect(row).to_contain_text("The TTS-Provider service runs on port 9100.")
    assert _documents(facts_store) == before  # nothing changed
    assert not ArchivedFact.objects.exists()
    _shot(page, "facts-resolve-cancelled")


def test_keep_newer_text_asks_without_a_false_alarm(
    page: Page, sign_in: Any, curator: Any, facts_store: FactsStore, agent_model: Embedder
) -> None:
    pairs = _plant(facts_store, agent_model)
    port = pairs["The TTS-Provider service runs on port 9000."]
    sign_in(curator)
    page.goto("/facts/next-start/")
    row = _row(page, port)
    row.locator('button[data-action="keep-newer-text"]').click()
    dialog = row.get_by_role("dialog")
    expect(dialog).to_contain_text("Give the older fact the newer text, archive the newer one?")
    expect(dialog).to_contain_text("The agent's next start deletes nothing because of this change.")
    expect(dialog.locator("[role=alert]")).to_have_count(0)  # no "would not save ... 1.000000"
    _shot(page, "facts-keep-newer-text-confirm")


def test_the_row_after_a_resolve_says_what_was_done_with_an_undo_that_undoes_it(
    page: Page,
    sign_in: Any,
    curator: Any,
    facts_store: FactsStore,
    agent_model: Embedder,
    agent: SimulatedAgent,
) -> None:
    pairs = _plant(facts_store, agent_model)
    older, newer = pairs["The TTS-Provider service runs on port 9000."]
    before = _documents(facts_store)
    sign_in(curator)
    page.goto("/facts/next-start/")
    _row(page, (older, newer)).locator('button[data-action="keep-older"]').click()
    _row(page, (older, newer)).locator("#write-confirm").click()

    message = _row(page, (older, newer)).locator("[data-role=outcome]")  # the row, in place
    expect(message).to_contain_text("Kept the older fact; the newer one is archived.")
    expect(message).not_to_contain_text("audit log")
    expect(_row(page, (older, newer)).locator("[data-action=keep-older]")).to_have_count(0)
    assert facts_store.collection.find_one({"_id": newer}) is None
    assert str(newer) not in agent.plan_start()
    _shot(page, "facts-resolve-done-with-undo")

    message.get_by_role("button", name="Undo").click()
    expect(page.locator("[data-message=success]")).to_contain_text("Undone.")
    expect(_row(page, (older, newer))).to_be_visible()
    assert _documents(facts_store) == before  # the newer fact back, as it was
    assert ArchivedFact.objects.get(fact_id=str(newer)).restored_id == str(newer)
    _shot(page, "facts-resolve-undone")


def test_the_flags_show_the_port_and_the_version_each_with_both_values(
    page: Page, sign_in: Any, viewer: Any, facts_store: FactsStore, agent_model: Embedder
) -> None:
    pairs = _plant(facts_store, agent_model)
    sign_in(viewer)
    page.goto("/facts/next-start/")
    for older, old_value, new_value in (
        ("The TTS-Provider service runs on port 9000.", "port 9000", "port 9100"),
        ("Lily uses Gemini 2.0 Flash as her model.", "Gemini 2.0", "Gemini 2.5"),
    ):
        flags = _row(page, pairs[older]).locator("[data-role=flags]")
        expect(flags).to_contain_text("possible update")
        expect(flags.locator("code[data-side=older]")).to_have_text(old_value)
        expect(flags.locator("code[data-side=newer]")).to_have_text(new_value)
        expect(flags).to_contain_text("The agent will delete a correction, not a copy")
    same = _row(page, pairs["Lily should answer in Japanese."]).locator("[data-role=flags]")
    expect(same).not_to_contain_text("possible update")  # no value differs
    _shot(page, "facts-flags")

    older, newer, _ = NEAR_MISSES[0]  # the GTNH tier, at 0.889: the agent keeps both
    assert older is not None
    agent_writes(facts_store, agent_model, older, days_ago=90)
    agent_writes(facts_store, agent_model, newer, days_ago=89)
    page.goto("/facts/contradictions/")
    flags = page.locator("#facts-contradictions [data-role=flags]").filter(has_text="MV")
    expect(flags.locator("code[data-side=older]")).to_have_text("MV")
    expect(flags.locator("code[data-side=newer]")).to_have_text("HV")
    expect(flags).to_contain_text("perhaps an old and a new value of one fact")
    _shot(page, "facts-contradictions-flags")
