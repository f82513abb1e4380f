"""Create, edit, delete, restore and embed against the real SecantusDB with the agent's
model; after each, the simulated agent's next start deletes nothing qqweb did not show
and archive first, and its retrieval still finds the curated text."""

from __future__ import annotations

from datetime import datetime

import numpy as np
import pytest
from bson import ObjectId

from memory_app.facts.lib import Fact, FactsStore
from memory_app.facts.lib.errors import (
    AgentModelRequired,
    FactChanged,
    FactReplaced,
    InvalidFact,
)
from memory_app.facts.lib.extjson import document_loads
from memory_app.facts.models import ArchivedFact
from memory_app.facts.services import (
    NeedsConfirmation,
    fact_create,
    fact_delete,
    fact_edit,
    fact_embed,
    fact_restore,
    facts_scan,
)
from qqweb.audit.models import AuditEvent
from qqweb.audit.services import audit_undo
from qqweb.lib.actors import Actor
from qqweb.lib.embeddings import Embedder, HashingEmbedder
from tests.memory_app.facts.conftest import agent_writes
from tests.memory_app.facts.lib.agent_simulator import SimulatedAgent

OLD_PORT = "The TTS-Provider service runs on port 9000."
NEW_PORT = "The TTS-Provider service runs on port 9100."
CAT = "The master's cat Mochi is three years old."
TEA = "The master drinks green tea every morning."
JAZZ = "The master likes jazz."


def test_a_new_fact_has_the_agents_exact_shape(
    facts_store: FactsStore, agent_model: Embedder, agent: SimulatedAgent, curator_actor: Actor
) -> None:
    result = fact_create(actor=curator_actor, content=TEA)
    assert result.applied and not result.plan.resolutions
    doc = facts_store.collection.find_one({"_id": ObjectId(result.fact_id)})
    assert doc is not None
    assert set(doc) == {"_id", "type", "content", "content_embedding", "timestamp", "metadata"}
    assert doc["type"] == "fact" and doc["metadata"] == {}
    assert isinstance(doc["timestamp"], datetime) and doc["timestamp"].tzinfo is None
    assert doc["timestamp"].microsecond % 1000 == 0
    assert doc["content_embedding"] == [float(x) for x in agent_model.embed([TEA])[0].tolist()]
    assert abs(np.linalg.norm(doc["content_embedding"]) - 1) < 1e-5
    assert AuditEvent.objects.get(pk=result.event_id).action == "fact.create"
    assert agent.start() == set()
    assert agent.retrieve("what does the master drink?")[0]["content"] == TEA


def test_a_hashing_embedder_is_refused_though_it_is_384_d(
    facts_store: FactsStore, curator_actor: Actor
) -> None:
    with pytest.raises(AgentModelRequired, match="all-MiniLM-L6-v2"):
        fact_create(actor=curator_actor, content=TEA, embedder=HashingEmbedder(384))
    assert facts_store.count() == 0


def test_a_correction_the_agent_would_refuse_archives_the_stale_fact_once_confirmed(
    facts_store: FactsStore, agent_model: Embedder, agent: SimulatedAgent, curator_actor: Actor
) -> None:
    old = agent_writes(facts_store, agent_model, OLD_PORT, days_ago=30)
    with pytest.raises(NeedsConfirmation) as refused:
        fact_create(actor=curator_actor, content=NEW_PORT)
    assert facts_store.count() == 1  # nothing written
    plan = refused.value.plan
    assert plan.add is not None and plan.add.refused  # the agent would not save it
    assert plan.archive_ids == [str(old)] and plan.resolutions[0].keeps_written
    result = fact_create(actor=curator_actor, content=NEW_PORT, confirm=plan.archive_ids)
    archived = ArchivedFact.objects.get(fact_id=str(old))
    assert document_loads(archived.document)["content"] == OLD_PORT
    assert agent.start() == set()
    assert agent.retrieve("which port does the TTS service use?")[0]["content"] == NEW_PORT
    assert result.archived == [str(old)]


def test_an_edit_keeps_id_and_timestamp_and_resolves_the_pair_it_makes(
    facts_store: FactsStore, agent_model: Embedder, agent: SimulatedAgent, curator_actor: Actor
) -> None:
    old = agent_writes(facts_store, agent_model, OLD_PORT, days_ago=30)
    newer = agent_writes(facts_store, agent_model, "The TTS voice is Lily.", days_ago=2)
    before = facts_store.collection.find_one({"_id": newer})
    assert before is not None
    preview = fact_edit(
        actor=curator_actor,
        fact_id=str(newer),
        expected_content="The TTS voice is Lily.",
        content=NEW_PORT,
        dry_run=True,
    )
    assert not preview.applied and preview.plan.archive_ids == [str(old)]
    assert preview.plan.resolutions[0].pair.deleted.hex_id == str(newer)  # 4.5 (a)
    fact_edit(
        actor=curator_actor,
        fact_id=str(newer),
        expected_content="The TTS voice is Lily.",
        content=NEW_PORT,
        confirm=[str(old)],
    )
    after = facts_store.collection.find_one({"_id": newer})
    assert after is not None
    assert after["content"] == NEW_PORT and after["timestamp"] == before["timestamp"]
    assert agent.start() == set()
    assert [r["content"] for r in agent.retrieve("TTS port")][:1] == [NEW_PORT]


def test_an_edit_on_a_stale_text_says_who_changed_it(
    facts_store: FactsStore, agent_model: Embedder, agent: SimulatedAgent, curator_actor: Actor
) -> None:
    fact = agent_writes(facts_store, agent_model, TEA, days_ago=3)
    with pytest.raises(FactChanged, match="another curator"):
        fact_edit(actor=curator_actor, fact_id=str(fact), expected_content="old text", content=CAT)
    coffee = agent.update(fact, "The master drinks black coffee.")
    with pytest.raises(FactReplaced, match="replaced it with an update") as raised:
        fact_edit(actor=curator_actor, fact_id=str(fact), expected_content=TEA, content=CAT)
    assert raised.value.status == 409 and raised.value.code == "stale"
    assert raised.value.replaced_by == str(coffee)
    assert "The master drinks black coffee." in str(raised.value)
    assert facts_store.get(str(coffee)).text == "The master drinks black coffee."  # untouched


def test_an_edit_of_a_fact_replaced_since_names_the_fact_in_its_place(
    facts_store: FactsStore, agent_model: Embedder, agent: SimulatedAgent, curator_actor: Actor
) -> None:
    """How the facts domain follows a fact: the tracker's finding, the same text under a
    new id, and the agent's update among unrelated new facts; a fact nothing explains but
    the tracker saw was deleted (409); an id nothing knows is a 404."""
    tea = agent_writes(facts_store, agent_model, TEA, days_ago=3)
    port = agent_writes(facts_store, agent_model, OLD_PORT, days_ago=3)
    cat = agent_writes(facts_store, agent_model, CAT, days_ago=3)
    facts_scan(actor=curator_actor)
    facts_store.collection.delete_one({"_id": cat})  # deleted, nothing in its place
    facts_scan(actor=curator_actor)  # the tracker says the cat fact vanished
    agent.add(JAZZ)  # unrelated, written since
    coffee = agent.update(tea, "The master drinks black coffee.")
    again = agent.update(port, OLD_PORT)  # the same text under a new id

    def refused(fact_id: object, text: str) -> FactChanged:
        with pytest.raises(FactChanged) as raised:
            fact_edit(
                actor=curator_actor, fact_id=str(fact_id), expected_content=text, content=NEW_PORT
            )
        return raised.value

    assert getattr(refused(tea, TEA), "replaced_by", None) == str(coffee)
    assert getattr(refused(port, OLD_PORT), "replaced_by", None) == str(again)
    deleted = refused(cat, CAT)
    assert (deleted.status, deleted.code) == (409, "stale") and "deleted it" in str(deleted)
    unknown = refused("0123456789abcdef01234567", CAT)
    assert (unknown.status, unknown.code) == (404, "not_found")
    assert facts_store.count() == 3  # jazz, coffee, the port again: nothing written


def test_an_edit_of_a_fact_another_curator_deleted_says_so(
    facts_store: FactsStore, agent_model: Embedder, curator_actor: Actor
) -> None:
    cat = agent_writes(facts_store, agent_model, CAT, days_ago=3)
    fact_delete(actor=curator_actor, fact_id=str(cat))
    with pytest.raises(FactChanged, match="qqweb archived it") as raised:
        fact_edit(actor=curator_actor, fact_id=str(cat), expected_content=CAT, content=TEA)
    assert raised.value.status == 409


def test_undo_of_an_edit_puts_back_the_text_and_the_archived_fact(
    facts_store: FactsStore, agent_model: Embedder, agent: SimulatedAgent, curator_actor: Actor
) -> None:
    old = agent_writes(facts_store, agent_model, OLD_PORT, days_ago=30)
    newer = agent_writes(facts_store, agent_model, TEA, days_ago=2)
    snapshot = list(facts_store.collection.find({}, sort=[("_id", 1)]))
    result = fact_edit(
        actor=curator_actor,
        fact_id=str(newer),
        expected_content=TEA,
        content=NEW_PORT,
        confirm=[str(old)],
    )
    assert result.event_id is not None
    audit_undo(actor=curator_actor, event_id=result.event_id)
    assert list(facts_store.collection.find({}, sort=[("_id", 1)])) == snapshot
    assert agent.start() == set()


def test_delete_archives_first_and_its_undo_restores_the_same_document(
    facts_store: FactsStore, agent_model: Embedder, curator_actor: Actor
) -> None:
    fact = agent_writes(facts_store, agent_model, CAT, days_ago=5, metadata={"synthetic": True})
    original = facts_store.collection.find_one({"_id": fact})
    result = fact_delete(actor=curator_actor, fact_id=str(fact))
    assert facts_store.count() == 0
    row = ArchivedFact.objects.get(fact_id=str(fact))
    assert document_loads(row.document) == original
    assert result.event_id is not None
    audit_undo(actor=curator_actor, event_id=result.event_id)
    assert facts_store.collection.find_one({"_id": fact}) == original


def test_deleting_a_chains_anchor_archives_what_it_would_let_the_agent_delete(
    facts_store: FactsStore, agent_model: Embedder, agent: SimulatedAgent, curator_actor: Actor
) -> None:
    a = agent_writes(
        facts_store, agent_model, "The Minecraft server IP is 192.168.1.20.", days_ago=9
    )
    b = agent_writes(
        facts_store, agent_model, "The Minecraft server IP is 192.168.1.25.", days_ago=8
    )
    c = agent_writes(
        facts_store, agent_model, "The Minecraft server IP is 192.168.1.25:25565.", days_ago=7
    )
    assert agent.plan_start() == {str(b)}  # A deletes B; C (0.941 to A) stays
    with pytest.raises(NeedsConfirmation) as refused:
        fact_delete(actor=curator_actor, fact_id=str(a))
    assert refused.value.plan.archive_ids == [str(c)]  # without A, B would delete C
    fact_delete(actor=curator_actor, fact_id=str(a), confirm=[str(c)])
    assert agent.start() == set()
    assert {r.fact_id for r in ArchivedFact.objects.all()} == {str(a), str(c)}


def test_restore_reuses_the_id_and_timestamp_when_free(
    facts_store: FactsStore, agent_model: Embedder, agent: SimulatedAgent, curator_actor: Actor
) -> None:
    fact = agent_writes(facts_store, agent_model, CAT, days_ago=5)
    original = facts_store.collection.find_one({"_id": fact})
    fact_delete(actor=curator_actor, fact_id=str(fact))
    row = ArchivedFact.objects.get(fact_id=str(fact))
    result = fact_restore(actor=curator_actor, archive_id=row.pk)
    assert result.fact_id == str(fact)
    assert facts_store.collection.find_one({"_id": fact}) == original
    row.refresh_from_db()
    assert row.restored_id == str(fact) and row.restored_at is not None
    assert agent.start() == set()
    with pytest.raises(FactChanged, match="restored already"):
        fact_restore(actor=curator_actor, archive_id=row.pk)


def test_restore_under_a_new_id_when_the_old_one_is_taken(
    facts_store: FactsStore, agent_model: Embedder, curator_actor: Actor
) -> None:
    fact = agent_writes(facts_store, agent_model, CAT, days_ago=5)
    fact_delete(actor=curator_actor, fact_id=str(fact))
    facts_store.collection.insert_one(
        {
            "_id": fact,
            "user_input": "hi",
            "llm_response": "hello",
            "timestamp": datetime(2025, 4, 20),
            "metadata": {},
        }
    )
    row = ArchivedFact.objects.get(fact_id=str(fact))
    result = fact_restore(actor=curator_actor, archive_id=row.pk)
    assert result.fact_id != str(fact)
    restored = facts_store.get(result.fact_id)
    assert isinstance(restored, Fact) and restored.content == CAT


def test_restoring_an_old_fact_shows_the_newer_one_it_would_delete(
    facts_store: FactsStore, agent_model: Embedder, agent: SimulatedAgent, curator_actor: Actor
) -> None:
    old = agent_writes(facts_store, agent_model, OLD_PORT, days_ago=30)
    fact_delete(actor=curator_actor, fact_id=str(old))
    newer = agent.add(NEW_PORT)  # saved now that the old one is gone
    row = ArchivedFact.objects.get(fact_id=str(old))
    with pytest.raises(NeedsConfirmation) as refused:
        fact_restore(actor=curator_actor, archive_id=row.pk)
    assert refused.value.plan.archive_ids == [str(newer)]
    fact_restore(actor=curator_actor, archive_id=row.pk, confirm=[str(newer)])
    assert agent.start() == set()
    assert agent.retrieve("TTS port")[0]["content"] == OLD_PORT


def test_embedding_a_legacy_fact_shows_the_newer_fact_it_would_delete(
    facts_store: FactsStore, agent_model: Embedder, agent: SimulatedAgent, curator_actor: Actor
) -> None:
    legacy = ObjectId()
    facts_store.collection.insert_one(
        {
            "_id": legacy,
            "type": "fact",
            "content": OLD_PORT,
            "timestamp": datetime(2025, 4, 20, 1),
            "metadata": {},
        }
    )
    newer = agent.add(NEW_PORT)
    with pytest.raises(NeedsConfirmation) as refused:
        fact_embed(actor=curator_actor, fact_id=str(legacy))
    assert refused.value.plan.archive_ids == [str(newer)]
    result = fact_embed(actor=curator_actor, fact_id=str(legacy), confirm=[str(newer)])
    assert agent.start() == set()
    assert agent.retrieve("TTS port")[0]["_id"] == str(legacy)
    assert result.event_id is not None
    audit_undo(actor=curator_actor, event_id=result.event_id)
    doc = facts_store.collection.find_one({"_id": legacy})
    assert doc is not None and "content_embedding" not in doc
    assert facts_store.collection.find_one({"_id": newer}) is not None


def test_an_empty_text_is_refused(
    facts_store: FactsStore, agent_model: Embedder, curator_actor: Actor
) -> None:
    with pytest.raises(InvalidFact, match="content"):
        fact_create(actor=curator_actor, content="   ")
