"""The vanished-facts scan: what the agent removed, classified, and restorable."""

from __future__ import annotations

from memory_app.facts.lib import FactsStore
from memory_app.facts.models import SeenFact
from memory_app.facts.services import fact_delete, fact_restore, facts_scan
from qqweb.lib.actors import Actor
from qqweb.lib.embeddings import Embedder
from tests.memory_app.facts.conftest import agent_writes
from tests.memory_app.facts.lib.agent_simulator import SimulatedAgent

OLD_PORT = "The TTS-Provider service runs on port 9000."
NEW_PORT = "The TTS-Provider service runs on port 9100."
CAT = "The master's cat Mochi is three years old."
JOB = "The master works as a backend developer."


def test_the_first_scan_lists_nothing(
    facts_store: FactsStore, agent_model: Embedder, curator_actor: Actor
) -> None:
    agent_writes(facts_store, agent_model, CAT, days_ago=3)
    report = facts_scan(actor=curator_actor)
    assert (report.seen, report.vanished) == (1, 0)


def test_each_cause_is_named(
    facts_store: FactsStore, agent_model: Embedder, agent: SimulatedAgent, curator_actor: Actor
) -> None:
    agent_writes(facts_store, agent_model, OLD_PORT, days_ago=20)
    duplicate = agent_writes(facts_store, agent_model, NEW_PORT, days_ago=1)
    cat = agent_writes(facts_store, agent_model, CAT, days_ago=5)
    job = agent_writes(facts_store, agent_model, JOB, days_ago=5)
    facts_scan(actor=curator_actor)
    agent.start()  # deletes the newer port
    agent.update(cat, "The master's cat Mochi is four years old.")
    facts_store.collection.delete_one({"_id": job})  # by hand, say
    report = facts_scan(actor=curator_actor)
    assert report.vanished == 3
    causes = {s.fact_id: s for s in SeenFact.objects.exclude(vanished_at=None)}
    assert causes[str(duplicate)].cause == SeenFact.DUPLICATE
    assert causes[str(cat)].cause == SeenFact.REPLACED
    assert causes[str(cat)].related_content == "The master's cat Mochi is four years old."
    assert causes[str(job)].cause == SeenFact.UNKNOWN


def test_what_qqweb_archived_is_not_listed_as_vanished(
    facts_store: FactsStore, agent_model: Embedder, curator_actor: Actor
) -> None:
    cat = agent_writes(facts_store, agent_model, CAT, days_ago=5)
    facts_scan(actor=curator_actor)
    fact_delete(actor=curator_actor, fact_id=str(cat))
    assert facts_scan(actor=curator_actor).vanished == 0
    assert SeenFact.objects.get(fact_id=str(cat)).cause == SeenFact.QQWEB


def test_a_vanished_fact_is_restored_from_its_snapshot(
    facts_store: FactsStore, agent_model: Embedder, agent: SimulatedAgent, curator_actor: Actor
) -> None:
    job = agent_writes(facts_store, agent_model, JOB, days_ago=5)
    original = facts_store.collection.find_one({"_id": job})
    facts_scan(actor=curator_actor)
    facts_store.collection.delete_one({"_id": job})
    facts_scan(actor=curator_actor)
    row = SeenFact.objects.get(fact_id=str(job))
    assert row.archive is not None
    fact_restore(actor=curator_actor, archive_id=row.archive.pk)
    assert facts_store.collection.find_one({"_id": job}) == original
    assert agent.start() == set()
    facts_scan(actor=curator_actor)
    assert SeenFact.objects.get(fact_id=str(job)).vanished_at is None
