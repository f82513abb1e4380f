"""The facts agent's retrieval as the memory tests ask it (memory_app/facts/recall.py):
a pinned fact passes at the agent's own rank, and one outranked past its three fails
naming what outranked it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from memory_app.facts.services.pairs import pair_resolve
from qqweb.lib.actors import Actor
from qqweb.recall.models import Pin, TestRun
from qqweb.recall.services import memory_tests_run, pin_create
from tests.memory_app.facts.conftest import agent_writes
from tests.memory_app.facts.lib.agent_simulator import SimulatedAgent
from tests.memory_app.facts.planted import doc
from tests.memory_app.facts.test_api_writes import NEW_PORT, OLD_PORT

pytestmark = pytest.mark.django_db

CURATOR = Actor("user", "curator", role="curator")


def test_a_pinned_fact_passes_at_the_rank_the_agent_retrieves_it(agent: SimulatedAgent) -> None:
    tea = agent.add("Ada drinks green tea every morning")
    agent.add("The office is in Oslo")
    question = "What does Ada drink in the morning?"
    expected = [str(r["_id"]) for r in agent.retrieve(question)].index(str(tea)) + 1
    pin_create(actor=CURATOR, query=question, item_id=str(tea), source="facts")
    run = memory_tests_run(actor=CURATOR, trigger=TestRun.PAGE)
    result = run.results.get()
    assert result.passed and result.rank == expected
    assert run.per_source["facts"]["k"] == 3


def test_a_fact_outranked_by_three_closer_ones_fails_naming_them(agent: SimulatedAgent) -> None:
    ids: list[Any] = [
        agent.add(text)
        for text in (
            "Ada drinks green tea every morning",
            "Ada drinks black coffee every morning",
            "Ada drinks orange juice every morning",
            "Ada drinks hot chocolate every morning",
        )
    ]
    question = "What does Ada drink every morning?"
    order = [str(r["_id"]) for r in agent.retrieve(question, k=4)]
    last = order[3]
    assert last in {str(i) for i in ids}
    pin_create(actor=CURATOR, query=question, item_id=last, source="facts")
    result = memory_tests_run(actor=CURATOR, trigger=TestRun.PAGE).results.get()
    assert not result.passed
    assert "ranked 4th, past the agent's 3; outranked by " in result.reason
    assert [o["id"] for o in result.outranked_by] == order[:3]


def test_a_pinned_fact_whose_newer_text_went_to_the_older_one_is_recalled_through_it(
    facts_store: Any, agent_model: Any, agent: SimulatedAgent, curator_actor: Actor
) -> None:
    """Keep the newer text: qqweb gives the older fact the newer one's text and archives
    the newer one; a pin on the newer fact follows its text to the older."""
    old = agent_writes(facts_store, agent_model, OLD_PORT, days_ago=20)
    new = agent_writes(facts_store, agent_model, NEW_PORT, days_ago=1)
    pin_create(
        actor=CURATOR,
        query="Which port does the TTS provider use?",
        item_id=str(new),
        source="facts",
    )
    pair_resolve(
        actor=curator_actor, anchor_id=str(old), deleted_id=str(new), how="keep-newer-text"
    )
    result = memory_tests_run(actor=CURATOR, trigger=TestRun.PAGE).results.get()
    assert result.passed and result.recalled_as == str(old), result.reason


@pytest.mark.parametrize(
    ("vector", "words"),
    [
        (None, "this fact has no vector yet, so no search can recall it"),
        ([], "this fact has an empty vector, which the agent skips"),
        ([0.5] * 12, "this fact has an invalid vector (a vector of length 12, not 384)"),
    ],
)
def test_pinning_a_fact_no_search_can_recall_is_a_400_naming_why(
    facts_store: Any, curator_client: Any, vector: Any, words: str
) -> None:
    """A legacy fact (no vector), or one whose vector the agent skips, is never among its
    three nearest: a pin on it could never pass."""
    fact = facts_store.collection.insert_one(doc("The user lives in Hanoi.", vector, 0)).inserted_id
    response = curator_client.post(
        "/api/memory-tests/pins",
        json.dumps({"query": "Where does the user live?", "item_id": str(fact), "source": "facts"}),
        content_type="application/json",
    )
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert (error["code"], error["item_id"]) == ("item_not_searchable", str(fact))
    assert words in error["message"]
    assert not Pin.objects.exists()
