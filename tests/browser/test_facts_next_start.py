"""The facts agent's "deleted at the next start" review in the browser: a curator keeps the
newer text of a value-changed pair, and the simulated agent's next start (written from the
contract, on the same collection) keeps the correction and deletes only what the page still
shows."""

import re
from typing import Any

from playwright.sync_api import Page, expect

from memory_app.facts.lib import FactsStore
from memory_app.facts.models import ArchivedFact
from qqweb.lib.embeddings import Embedder
from tests.browser.conftest import PHONE
from tests.browser.words import assert_reads_as_words, shot
from tests.memory_app.facts.conftest import agent, agent_model, agent_writes, facts_store
from tests.memory_app.facts.lib.agent_simulator import SimulatedAgent

__all__ = ["agent", "agent_model", "facts_store"]  # fixtures of the facts tests

OLD_PORT = "The TTS-Provider service runs on port 9000."
NEW_PORT = "The TTS-Provider service runs on port 9100."
OLD_MODEL = "Lily uses Gemini 2.0 Flash as her model."
NEW_MODEL = "Lily uses Gemini 2.5 Flash as her model."
OTHERS = [
    "The master's cat Mochi is three years old.",
    "The master drinks green tea every morning.",
    "The Discord server has a channel called #gtnh-progress.",
]


def _shown_deletions(page: Page) -> set[str]:
    rows = page.locator("#next-start-pairs tr[data-pair]")
    return {rows.nth(i).get_attribute("data-deleted-id") or "" for i in range(rows.count())}


def _ids(store: FactsStore) -> set[str]:
    return {str(doc["_id"]) for doc in store.collection.find({}, {"_id": 1})}


def test_keep_newer_text_survives_the_agents_next_start(
    page: Page,
    sign_in: Any,
    curator: Any,
    facts_store: FactsStore,
    agent_model: Embedder,
    agent: SimulatedAgent,
) -> None:
    old = agent_writes(facts_store, agent_model, OLD_PORT, days_ago=20)
    new = agent_writes(facts_store, agent_model, NEW_PORT, days_ago=1)
    old_model = agent_writes(facts_store, agent_model, OLD_MODEL, days_ago=40)
    new_model = agent_writes(facts_store, agent_model, NEW_MODEL, days_ago=3)
    for days, text in enumerate(OTHERS, start=5):
        agent_writes(facts_store, agent_model, text, days_ago=days)
    before = facts_store.collection.find_one({"_id": old})
    assert before is not None
    assert agent.plan_start() == {str(new), str(new_model)}

    sign_in(curator)
    page.goto("/facts/next-start/")
    pair = page.locator(f"#pair-{old}-{new}")
    expect(pair).to_contain_text(OLD_PORT)
    expect(pair).to_contain_text(NEW_PORT)
    assert _shown_deletions(page) == {str(new), str(new_model)}
    # each pair's verdict in words: the values it changes, from the older to the newer
    expect(pair.locator(".pair-verdict")).to_contain_text("possible update: port 9000 → 9100")
    expect(page.locator(f"#pair-{old_model}-{new_model} .pair-verdict")).to_contain_text(
        "possible update: Gemini 2.0 → 2.5"
    )
    pair.locator('button[data-action="keep-newer-text"]').click()

    # The page previews first and asks to confirm; nothing is written yet.
    confirm = page.locator("#write-preview #write-confirm")
    expect(confirm).to_be_visible()
    expect(page.locator("#write-preview")).to_contain_text(
        "The agent's next start deletes nothing because of this change."
    )
    assert facts_store.collection.find_one({"_id": old}) == before
    confirm.click()

    # Done: still on the list, the row replaced in place by what was done, with an Undo;
    # the other pair is still there, left to the curator.
    done = page.locator(f"#pair-{old}-{new}[data-resolved]")
    expect(done).to_contain_text("The older fact has the newer text; the newer one is archived.")
    expect(done.get_by_role("button", name="Undo")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/facts/next-start/$"))
    expect(page.locator(f"#pair-{old_model}-{new_model}")).to_be_visible()
    assert_reads_as_words(page.locator("#next-start-pairs"))
    shot(page, "facts-next-start-resolved-1280")
    page.goto("/facts/next-start/")
    expect(page.locator(f"#pair-{old_model}-{new_model}")).to_be_visible()
    shown = _shown_deletions(page)
    assert shown == {str(new_model)}  # the other pair is still there, left to the curator

    present = _ids(facts_store)
    deleted = agent.start()
    assert deleted == shown  # nothing the page did not show
    assert _ids(facts_store) == present - shown
    after = facts_store.collection.find_one({"_id": old})
    assert after is not None and after["content"] == NEW_PORT
    assert after["timestamp"] == before["timestamp"]
    assert facts_store.collection.find_one({"_id": new}) is None
    archived = ArchivedFact.objects.get(fact_id=str(new))  # archived by qqweb, restorable
    assert archived.reason == ArchivedFact.KEEP_NEWER_TEXT and not archived.restored_id
    assert agent.retrieve("Which port does the TTS service use?")[0] == {
        "_id": str(old),
        "content": NEW_PORT,
    }


def test_a_copy_the_next_start_deletes_is_said_to_be_the_same_fact(
    page: Page,
    sign_in: Any,
    curator: Any,
    facts_store: FactsStore,
    agent_model: Embedder,
    agent: SimulatedAgent,
) -> None:
    old = agent_writes(
        facts_store, agent_model, "The master drinks green tea every morning.", days_ago=9
    )
    new = agent_writes(
        facts_store, agent_model, "The master drinks green tea every morning", days_ago=2
    )
    assert agent.plan_start() == {str(new)}
    sign_in(curator)
    page.goto("/facts/next-start/")
    verdict = page.locator(f"#pair-{old}-{new} .pair-verdict")
    expect(verdict).to_have_attribute("data-verdict", "same")
    expect(verdict).to_contain_text("same fact")


def test_at_phone_width_a_resolve_stays_on_the_list_and_undo_brings_the_pair_back(
    page: Page, sign_in: Any, curator: Any, facts_store: FactsStore, agent_model: Embedder
) -> None:
    old = agent_writes(facts_store, agent_model, OLD_PORT, days_ago=20)
    new = agent_writes(facts_store, agent_model, NEW_PORT, days_ago=1)
    page.set_viewport_size(PHONE)  # type: ignore[arg-type]
    sign_in(curator)
    page.goto("/facts/next-start/")
    page.locator(f'#pair-{old}-{new} button[data-action="keep-older"]').click()
    page.locator("#write-preview #write-confirm").click()
    done = page.locator(f"#pair-{old}-{new}[data-resolved]")
    expect(done).to_contain_text("Kept the older fact; the newer one is archived.")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the list is {width} px wide at 390 px"
    shot(page, "facts-next-start-resolved-390", full_page=False)
    done.get_by_role("button", name="Undo").click()
    expect(page).to_have_url(re.compile(rf"/facts/next-start/#pair-{old}-{new}$"))
    expect(page.locator(f"#pair-{old}-{new}[data-pair]")).to_be_visible()
    expect(page.locator("#messages")).to_contain_text("Undone.")
