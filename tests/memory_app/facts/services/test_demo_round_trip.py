"""On the demo (contract section 5, real all-MiniLM-L6-v2 vectors): resolving every pair
of the next-start plan with "keep newer text" leaves the agent's start nothing to
delete, keeps every correction under the older fact's _id, and retrieval finds them."""

from __future__ import annotations

from io import StringIO

from django.core.management import call_command

from memory_app.facts import demo_data
from memory_app.facts.lib import FactsStore
from memory_app.facts.lib.rules import cleanup_plan
from memory_app.facts.models import ArchivedFact
from memory_app.facts.services import NeedsConfirmation, pair_resolve
from qqweb.lib.actors import Actor
from qqweb.lib.embeddings import Embedder
from tests.memory_app.facts.lib.agent_simulator import SimulatedAgent


def test_keep_newer_text_on_every_planned_pair_of_the_demo(
    facts_store: FactsStore, agent_model: Embedder, agent: SimulatedAgent, curator_actor: Actor
) -> None:
    call_command("seed_facts_demo", stdout=StringIO())
    before = facts_store.count()
    resolved = 0
    while plan := cleanup_plan(facts_store.facts()).deletions:
        pair = plan[0]
        try:
            pair_resolve(
                actor=curator_actor,
                anchor_id=pair.anchor.hex_id,
                deleted_id=pair.deleted.hex_id,
                how="keep-newer-text",
            )
        except NeedsConfirmation as e:  # a chain: what else would go is shown first
            pair_resolve(
                actor=curator_actor,
                anchor_id=pair.anchor.hex_id,
                deleted_id=pair.deleted.hex_id,
                how="keep-newer-text",
                confirm=e.plan.archive_ids,
            )
        resolved += 1
    assert resolved >= len(demo_data.VALUE_CHANGED)
    assert agent.start() == set()
    contents = {f.text for f in facts_store.facts()}
    for _older, newer, _ in demo_data.VALUE_CHANGED:
        assert newer in contents
    assert agent.retrieve("Which Gemini model does Lily use?")[0]["content"] == (
        "Lily uses Gemini 2.5 Flash as her model."
    )
    assert facts_store.count() == before - ArchivedFact.objects.count()
