"""The next-start review's pair actions: what goes is archived by qqweb now, chains are
re-checked, and each action is undone as a whole."""

from __future__ import annotations

import pytest

from memory_app.facts.lib import FactsStore
from memory_app.facts.lib.errors import FactChanged
from memory_app.facts.models import ArchivedFact
from memory_app.facts.services import pair_resolve
from qqweb.audit.services import audit_undo
from qqweb.lib.actors import Actor
from qqweb.lib.embeddings import Embedder
from tests.memory_app.facts.conftest import agent_writes
from tests.memory_app.facts.lib.agent_simulator import SimulatedAgent

OLD_PORT = "The TTS-Provider service runs on port 9000."
NEW_PORT = "The TTS-Provider service runs on port 9100."
IPS = [
    "The Minecraft server IP is 192.168.1.20.",
    "The Minecraft server IP is 192.168.1.25.",
    "The Minecraft server IP is 192.168.1.25:25565.",
]


def test_keep_older_archives_the_newer_now(
    facts_store: FactsStore, agent_model: Embedder, agent: SimulatedAgent, curator_actor: Actor
) -> None:
    old = agent_writes(facts_store, agent_model, OLD_PORT, days_ago=20)
    new = agent_writes(facts_store, agent_model, NEW_PORT, days_ago=1)
    pair_resolve(actor=curator_actor, anchor_id=str(old), deleted_id=str(new), how="keep-older")
    assert ArchivedFact.objects.get().fact_id == str(new)
    assert agent.start() == set()


def test_keep_newer_text_keeps_the_older_id_and_timestamp_and_undoes_whole(
    facts_store: FactsStore, agent_model: Embedder, agent: SimulatedAgent, curator_actor: Actor
) -> None:
    old = agent_writes(facts_store, agent_model, OLD_PORT, days_ago=20)
    new = agent_writes(facts_store, agent_model, NEW_PORT, days_ago=1)
    before = list(facts_store.collection.find({}, sort=[("_id", 1)]))
    result = pair_resolve(
        actor=curator_actor, anchor_id=str(old), deleted_id=str(new), how="keep-newer-text"
    )
    doc = facts_store.collection.find_one({"_id": old})
    assert doc is not None and doc["content"] == NEW_PORT
    assert doc["timestamp"] == before[0]["timestamp"]
    assert agent.start() == set()
    assert agent.retrieve("TTS port")[0] == {"_id": str(old), "content": NEW_PORT}
    assert result.event_id is not None
    audit_undo(actor=curator_actor, event_id=result.event_id)
    assert list(facts_store.collection.find({}, sort=[("_id", 1)])) == before


def test_delete_both_archives_both_and_the_rest_of_the_chain_stays(
    facts_store: FactsStore, agent_model: Embedder, agent: SimulatedAgent, curator_actor: Actor
) -> None:
    a, b, c = (
        agent_writes(facts_store, agent_model, text, days_ago=9 - i) for i, text in enumerate(IPS)
    )
    assert agent.plan_start() == {str(b)}
    result = pair_resolve(
        actor=curator_actor, anchor_id=str(a), deleted_id=str(b), how="delete-both"
    )
    assert sorted(result.archived) == sorted([str(a), str(b)])
    assert agent.start() == set()
    assert facts_store.get(str(c)).text == IPS[2]


def test_keep_older_in_a_chain_needs_no_more_archives(
    facts_store: FactsStore, agent_model: Embedder, agent: SimulatedAgent, curator_actor: Actor
) -> None:
    a, b, _ = (
        agent_writes(facts_store, agent_model, text, days_ago=9 - i) for i, text in enumerate(IPS)
    )
    result = pair_resolve(
        actor=curator_actor, anchor_id=str(a), deleted_id=str(b), how="keep-older", dry_run=True
    )
    assert result.plan.archive_ids == [] and not result.applied


def test_a_pair_no_longer_planned_is_refused(
    facts_store: FactsStore, agent_model: Embedder, agent: SimulatedAgent, curator_actor: Actor
) -> None:
    old = agent_writes(facts_store, agent_model, OLD_PORT, days_ago=20)
    new = agent_writes(facts_store, agent_model, NEW_PORT, days_ago=1)
    agent.start()
    with pytest.raises(FactChanged, match="not in the agent's next-start plan"):
        pair_resolve(actor=curator_actor, anchor_id=str(old), deleted_id=str(new), how="keep-older")


def test_keep_newer_text_raises_no_alarm_about_the_fact_it_archives(
    facts_store: FactsStore, agent_model: Embedder, curator_actor: Actor
) -> None:
    old = agent_writes(facts_store, agent_model, OLD_PORT, days_ago=20)
    new = agent_writes(facts_store, agent_model, NEW_PORT, days_ago=1)
    result = pair_resolve(
        actor=curator_actor,
        anchor_id=str(old),
        deleted_id=str(new),
        how="keep-newer-text",
        dry_run=True,
    )
    assert result.plan.add is not None and not result.plan.add.refused


def test_keep_newer_text_still_warns_of_a_third_fact_with_that_text(
    facts_store: FactsStore, agent_model: Embedder, curator_actor: Actor
) -> None:
    a, b, c = (
        agent_writes(facts_store, agent_model, text, days_ago=9 - i) for i, text in enumerate(IPS)
    )
    result = pair_resolve(
        actor=curator_actor,
        anchor_id=str(a),
        deleted_id=str(b),
        how="keep-newer-text",
        dry_run=True,
    )
    add = result.plan.add
    assert add is not None and add.refused and add.best is not None
    assert add.best.hex_id == str(c)  # the ":25565" fact, which stays: a real alarm
