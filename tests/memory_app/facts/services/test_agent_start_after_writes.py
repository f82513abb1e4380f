"""After every kind of qqweb write, and after its undo, the simulated agent's next start
deletes exactly what qqweb's "deleted at the next start" review shows (here: a pair planned
before the write and left to the curator), everything qqweb removed was archived first,
and the agent's retrieval still answers with the curated text.

The other tests of the writes check each action's own details on a store where the start
deletes nothing; these run every action on the same store, with a pending pair beside it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pytest
from bson import ObjectId

from memory_app.facts import selectors
from memory_app.facts.lib import FactsStore
from memory_app.facts.models import ArchivedFact
from memory_app.facts.services import (
    FactAction,
    NeedsConfirmation,
    fact_create,
    fact_delete,
    fact_edit,
    fact_embed,
    fact_restore,
    pair_resolve,
)
from qqweb.audit.errors import UndoRefused
from qqweb.audit.services import audit_undo
from qqweb.lib.actors import Actor
from qqweb.lib.embeddings import Embedder
from tests.memory_app.facts.conftest import agent_writes
from tests.memory_app.facts.lib.agent_simulator import SimulatedAgent

OLD_MODEL = "Lily uses Gemini 2.0 Flash as her model."
NEW_MODEL = "Lily uses Gemini 2.5 Flash as her model."
OLD_PORT = "The TTS-Provider service runs on port 9000."
NEW_PORT = "The TTS-Provider service runs on port 9100."
CAT = "The master's cat Mochi is three years old."
TEA = "The master drinks green tea every morning."
DISCORD = "The Discord server has a channel called #gtnh-progress."
LEGACY = "The master's favourite game is GregTech: New Horizons."


@dataclass
class World:
    ids: dict[str, ObjectId]  # by text
    pending: str  # the newer of the pair planned before any write: the review's to resolve

    def id(self, text: str) -> str:
        return str(self.ids[text])


@pytest.fixture
def world(facts_store: FactsStore, agent_model: Embedder) -> World:
    ids = {
        text: agent_writes(facts_store, agent_model, text, days_ago=days)
        for text, days in [
            (OLD_MODEL, 40),
            (NEW_MODEL, 3),
            (OLD_PORT, 20),
            (NEW_PORT, 1),
            (CAT, 5),
            (TEA, 6),
            (DISCORD, 7),
        ]
    }
    ids[LEGACY] = ObjectId()
    facts_store.collection.insert_one(
        {
            "_id": ids[LEGACY],
            "type": "fact",
            "content": LEGACY,
            "timestamp": datetime(2025, 4, 19, 18, 30),
            "metadata": {},
        }
    )
    return World(ids, pending=str(ids[NEW_MODEL]))


def confirmed(write: Callable[..., FactAction]) -> FactAction:
    """The write as a curator makes it: the preview, then confirmed with what it shows."""
    preview = write(dry_run=True)
    assert not preview.applied
    return write(confirm=preview.plan.archive_ids)


@dataclass
class Done:
    action: FactAction
    question: str  # asked of the agent's retrieval afterwards
    answered: str | None  # a text the top 3 must hold (the curated one)
    gone: str | None = None  # a text it must not hold any more


Write = Callable[[Actor, World], Done]


def _create(text: str) -> Write:
    def create(actor: Actor, world: World) -> Done:
        action = confirmed(lambda **kw: fact_create(actor=actor, content=text, **kw))
        return Done(action, "Which port does the TTS service use? Is there a dog?", text)

    return create


def _edit(old: str, new: str) -> Write:
    def edit(actor: Actor, world: World) -> Done:
        action = confirmed(
            lambda **kw: fact_edit(
                actor=actor, fact_id=world.id(old), expected_content=old, content=new, **kw
            )
        )
        return Done(action, new, new, gone=old)

    return edit


def _delete(actor: Actor, world: World) -> Done:
    action = confirmed(lambda **kw: fact_delete(actor=actor, fact_id=world.id(CAT), **kw))
    return Done(action, "How old is the cat Mochi?", None, gone=CAT)


def _restore(actor: Actor, world: World) -> Done:
    fact_delete(actor=actor, fact_id=world.id(CAT))
    row = ArchivedFact.objects.get(fact_id=world.id(CAT))
    action = confirmed(lambda **kw: fact_restore(actor=actor, archive_id=row.pk, **kw))
    return Done(action, "How old is the cat Mochi?", CAT)


def _embed(actor: Actor, world: World) -> Done:
    action = confirmed(lambda **kw: fact_embed(actor=actor, fact_id=world.id(LEGACY), **kw))
    return Done(action, "Which game does the master like most?", LEGACY)


def _pair(how: str, answered: str | None, gone: str | None) -> Write:
    def resolve(actor: Actor, world: World) -> Done:
        action = confirmed(
            lambda **kw: pair_resolve(
                actor=actor,
                anchor_id=world.id(OLD_PORT),
                deleted_id=world.id(NEW_PORT),
                how=how,
                **kw,
            )
        )
        return Done(action, "Which port does the TTS-Provider service run on?", answered, gone)

    return resolve


WRITES: dict[str, Write] = {
    "create": _create("The master's dog is called Biscuit."),
    "create a correction": _create("The TTS-Provider service runs on port 9200."),
    "edit": _edit(TEA, "The master drinks black coffee every morning."),
    "delete": _delete,
    "restore": _restore,
    "embed a legacy fact": _embed,
    "keep older": _pair("keep-older", OLD_PORT, NEW_PORT),
    "keep newer text": _pair("keep-newer-text", NEW_PORT, OLD_PORT),
    "delete both": _pair("delete-both", None, OLD_PORT),
    "make distinct": _edit(NEW_PORT, "The TTS-Provider status page is served at /health."),
}


def _documents(store: FactsStore) -> dict[str, dict[str, Any]]:
    return {str(doc["_id"]): doc for doc in store.collection.find({})}


def assert_the_start_deletes_what_qqweb_shows(
    store: FactsStore, agent: SimulatedAgent, before: dict[str, dict[str, Any]]
) -> set[str]:
    """The agent's start deletes exactly the review's pairs, and every document qqweb
    removed since ``before`` has its archived copy."""
    shown = selectors.next_start_plan().deleted_ids
    now = _documents(store)
    archived = set(ArchivedFact.objects.values_list("fact_id", flat=True))
    assert set(before) - set(now) <= archived, "qqweb removed a document it did not archive"
    assert agent.start() == shown
    assert set(_documents(store)) == set(now) - shown
    return shown


@pytest.mark.parametrize("write", list(WRITES))
def test_the_next_start_deletes_only_what_qqweb_shows_after_each_write(
    write: str,
    world: World,
    facts_store: FactsStore,
    agent: SimulatedAgent,
    curator_actor: Actor,
) -> None:
    before = _documents(facts_store)
    planned = selectors.next_start_plan().deleted_ids
    done = WRITES[write](curator_actor, world)
    assert done.action.applied
    shown = assert_the_start_deletes_what_qqweb_shows(facts_store, agent, before)
    assert world.pending in shown and shown <= planned  # what was planned, nothing new
    answer = [a["content"] for a in agent.retrieve(done.question)]
    assert len(answer) == 3  # retrieval works: no vector qqweb wrote broke it
    if done.answered is not None:
        assert done.answered in answer
    assert done.gone not in answer


@pytest.mark.parametrize("write", [w for w in WRITES if w != "restore"])
def test_the_undo_of_each_write_leaves_the_agent_nothing_new_to_delete(
    write: str,
    world: World,
    facts_store: FactsStore,
    agent: SimulatedAgent,
    curator_actor: Actor,
) -> None:
    before = _documents(facts_store)
    action = WRITES[write](curator_actor, world).action
    assert action.event_id is not None
    audit_undo(actor=curator_actor, event_id=action.event_id)
    assert _documents(facts_store) == before  # the same documents, ids and timestamps
    shown = assert_the_start_deletes_what_qqweb_shows(facts_store, agent, before)
    assert shown == {world.pending, world.id(NEW_PORT)}  # the two pairs, as before


def test_undoing_a_delete_refuses_to_bring_back_a_fact_that_would_delete_the_agents_newer(
    facts_store: FactsStore, agent_model: Embedder, agent: SimulatedAgent, curator_actor: Actor
) -> None:
    old = agent_writes(facts_store, agent_model, OLD_PORT, days_ago=30)
    deleted = fact_delete(actor=curator_actor, fact_id=str(old))
    newer = agent.add(NEW_PORT)  # saved by the agent now that the old one is gone
    assert deleted.event_id is not None and newer is not None
    with pytest.raises(UndoRefused, match=f"delete {newer}"):
        audit_undo(actor=curator_actor, event_id=deleted.event_id)
    assert {d["_id"] for d in facts_store.collection.find({})} == {newer}
    assert agent.start() == set()
    # The archive's restore is the way back: it shows the newer fact and archives it first.
    row = ArchivedFact.objects.get(fact_id=str(old))
    with pytest.raises(NeedsConfirmation):
        fact_restore(actor=curator_actor, archive_id=row.pk)


def test_undoing_an_edit_refuses_to_put_back_a_text_that_would_delete_the_agents_newer(
    facts_store: FactsStore, agent_model: Embedder, agent: SimulatedAgent, curator_actor: Actor
) -> None:
    tea = agent_writes(facts_store, agent_model, TEA, days_ago=6)
    edited = fact_edit(
        actor=curator_actor,
        fact_id=str(tea),
        expected_content=TEA,
        content="The master drinks black coffee every morning.",
    )
    newer = agent.add(TEA)  # the agent saves the tea again: nothing is near it now
    assert edited.event_id is not None and newer is not None
    with pytest.raises(UndoRefused, match=f"delete {newer}"):
        audit_undo(actor=curator_actor, event_id=edited.event_id)
    assert facts_store.count() == 2
    assert agent.start() == set()
