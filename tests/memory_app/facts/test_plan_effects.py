"""The next-start deletions page marks the pinned facts the agent would delete, and says
which pinned recalls the next start would lose (qqweb follows a deleted duplicate's pin
to the fact the agent keeps, so a pin is lost only when that one is not recalled)."""

from __future__ import annotations

import pytest
from django.test import Client

from memory_app.facts.lib import FactsStore
from memory_app.facts.plan_effects import next_start_effect
from memory_app.facts.recall import FactsRecall
from memory_app.facts.selectors import next_start_plan
from qqweb.lib.actors import Actor
from qqweb.lib.embeddings import Embedder
from qqweb.recall.effects import plan_effect
from qqweb.recall.models import TestRun
from qqweb.recall.services import memory_tests_run, pin_create
from tests.memory_app.facts.conftest import agent_writes

CURATOR = Actor("user", "curator", role="curator")
OLDER = "The TTS server listens on port 9000."
NEWER = "The TTS server listens on port 9000"
QUESTION = "Which port does the TTS server listen on?"


@pytest.fixture
def pinned_duplicate(facts_store: FactsStore, agent_model: Embedder) -> dict[str, str]:
    older = str(agent_writes(facts_store, agent_model, OLDER, days_ago=2))
    newer = str(agent_writes(facts_store, agent_model, NEWER, days_ago=1))
    agent_writes(facts_store, agent_model, "The user likes green tea.", days_ago=3)
    pin_create(actor=CURATOR, query=QUESTION, item_id=newer, source="facts")
    return {"older": older, "newer": newer}


@pytest.mark.django_db
def test_a_pinned_duplicate_the_next_start_deletes_is_recalled_through_the_kept_fact(
    pinned_duplicate: dict[str, str],
) -> None:
    now = memory_tests_run(actor=CURATOR, trigger=TestRun.PAGE).results.get()
    assert now.passed  # the agent recalls the pinned fact today
    plan = next_start_plan()
    assert [(d.anchor.hex_id, d.deleted.hex_id) for d in plan.deletions] == [
        (pinned_duplicate["older"], pinned_duplicate["newer"])
    ]
    effect = next_start_effect(plan)
    assert effect.pins == 1 and effect.error == ""
    assert effect.lost == [] and effect.highlight == {pinned_duplicate["newer"]}


@pytest.mark.django_db
def test_the_next_start_page_marks_the_pinned_fact_and_warns_of_no_loss(
    pinned_duplicate: dict[str, str], viewer_client: Client
) -> None:
    page = viewer_client.get("/facts/next-start/").content.decode()
    deleted_cell = page.split('data-role="deleted"')[1].split("</td>")[0]
    assert '<span class="pill pin-marker" data-pinned>pinned</span>' in deleted_cell
    assert 'id="plan-pins-lost"' not in page


@pytest.mark.django_db
def test_a_next_start_that_would_delete_a_pinned_fact_with_no_survivor_names_it(
    facts_store: FactsStore, agent_model: Embedder
) -> None:
    """The reason a lost fact's pin gives (a removal with no kept fact), through the
    facts agent's own retrieval."""
    fact = str(agent_writes(facts_store, agent_model, OLDER, days_ago=2))
    pin_create(actor=CURATOR, query=QUESTION, item_id=fact, source="facts")
    effect = plan_effect("facts", {fact: None}, gone="deleted at the next start")
    [lost] = effect.lost
    assert (lost.item_id, lost.why) == (fact, "deleted at the next start")


@pytest.mark.django_db
def test_resolving_a_pair_keeps_the_newer_ones_pin_through_the_older_fact_unless_both_go(
    pinned_duplicate: dict[str, str], curator_client: Client
) -> None:
    """Keeping the older fact, or giving it the newer text, archives the newer one, whose
    pin follows it to the older fact: no loss. Deleting both loses it, named before the
    confirm button."""
    fields = {
        "anchor_id": pinned_duplicate["older"],
        "deleted_id": pinned_duplicate["newer"],
        "preview": "1",
    }
    for how in ("keep-older", "keep-newer-text"):
        kept = curator_client.post(
            "/facts/next-start/resolve/", {**fields, "how": how}, HTTP_HX_REQUEST="true"
        ).content.decode()
        assert 'id="write-confirm"' in kept and 'id="write-pins-lost"' not in kept, how
    both = curator_client.post(
        "/facts/next-start/resolve/", {**fields, "how": "delete-both"}, HTTP_HX_REQUEST="true"
    ).content.decode()
    warning = both.split('id="write-pins-lost"')[1].split("</div>")[0]
    assert "This resolution loses 1 of 1 pinned recall:" in warning
    assert f">{QUESTION}</a>” →" in warning and "archived by this resolution" in warning
    assert f'href="/facts/{pinned_duplicate["newer"]}/"' in warning
    assert both.index('id="write-pins-lost"') < both.index('id="write-confirm"')


@pytest.mark.django_db
def test_the_next_start_api_says_what_the_deletions_do_to_the_pins(
    pinned_duplicate: dict[str, str], viewer_client: Client
) -> None:
    pins = viewer_client.get("/api/facts/next-start").json()["pins"]
    assert pins == {
        "pins": 1,
        "lost": [],
        "pinned_items": [pinned_duplicate["newer"]],
        "error": "",
    }


@pytest.mark.django_db
def test_a_resolution_previewed_over_the_api_names_the_pin_it_would_lose(
    pinned_duplicate: dict[str, str], curator_client: Client
) -> None:
    def preview(how: str) -> dict:
        body = {
            "anchor_id": pinned_duplicate["older"],
            "deleted_id": pinned_duplicate["newer"],
            "how": how,
            "dry_run": True,
        }
        answer = curator_client.post(
            "/api/facts/next-start/resolve", body, content_type="application/json"
        )
        assert answer.status_code == 200, answer.content
        return answer.json()

    assert preview("keep-older")["pins"]["lost"] == []
    [lost] = preview("delete-both")["pins"]["lost"]
    assert (lost["query"], lost["item_id"]) == (QUESTION, pinned_duplicate["newer"])
    assert lost["why"] == "archived by this resolution"


@pytest.mark.django_db
def test_deleting_a_pinned_fact_warns_before_it_applies_on_the_page_and_over_the_api(
    facts_store: FactsStore, agent_model: Embedder, curator_client: Client
) -> None:
    fact = str(agent_writes(facts_store, agent_model, OLDER, days_ago=2))
    agent_writes(facts_store, agent_model, "The user likes green tea.", days_ago=3)
    pin_create(actor=CURATOR, query=QUESTION, item_id=fact, source="facts")

    api = curator_client.delete(f"/api/facts/{fact}?dry_run=true").json()
    assert api["applied"] is False
    [lost] = api["pins"]["lost"]
    assert (lost["item_id"], lost["why"]) == (fact, "archived by this deletion")

    page = curator_client.post(
        f"/facts/{fact}/delete/", {"preview": "1"}, HTTP_HX_REQUEST="true"
    ).content.decode()
    warning = page.split('id="write-pins-lost"')[1].split("</div>")[0]
    assert "This deletion loses 1 of 1 pinned recall:" in warning
    assert page.index('id="write-pins-lost"') < page.index('id="write-confirm"')
    assert facts_store.get(fact).hex_id == fact  # a preview writes nothing


@pytest.mark.django_db
def test_deleting_a_pinned_fact_named_in_capitals_still_warns_of_the_pin_it_loses(
    facts_store: FactsStore, agent_model: Embedder, curator_client: Client
) -> None:
    """The store reads a 24-hex id in either case (the same ObjectId), so the delete
    deletes the pinned fact: its preview must say so."""
    fact = str(agent_writes(facts_store, agent_model, OLDER, days_ago=2))
    agent_writes(facts_store, agent_model, "The user likes green tea.", days_ago=3)
    pin_create(actor=CURATOR, query=QUESTION, item_id=fact, source="facts")

    api = curator_client.delete(f"/api/facts/{fact.upper()}?dry_run=true").json()
    [lost] = api["pins"]["lost"]
    assert (lost["item_id"], lost["why"]) == (fact, "archived by this deletion")

    page = curator_client.post(
        f"/facts/{fact.upper()}/delete/", {"preview": "1"}, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert "This deletion loses 1 of 1 pinned recall:" in page


@pytest.mark.django_db
def test_present_answers_for_every_fact_id_what_its_whereabouts_say(
    facts_store: FactsStore, agent_model: Embedder
) -> None:
    """The preview's batched read agrees with each id's whereabouts: an ObjectId in lower
    case and in capitals (the store reads both), an id stored as text, a document that is
    no fact (a turn), and an id the store does not hold."""
    fact = str(agent_writes(facts_store, agent_model, OLDER, days_ago=2))
    by_hand = "fact-by-hand"
    agent_writes(facts_store, agent_model, NEWER, days_ago=1)
    facts_store.collection.insert_one({"_id": by_hand, "type": "fact", "content": "Tea."})
    facts_store.collection.insert_one({"_id": "turn-1", "type": "turn", "content": "Hi."})
    engine = FactsRecall()
    ids = [fact, fact.upper(), by_hand, "turn-1", "0" * 24, "never"]
    assert engine.present(ids) == {i for i in ids if engine.whereabouts(i).present}
    assert engine.present(ids) == {fact, fact.upper(), by_hand}
