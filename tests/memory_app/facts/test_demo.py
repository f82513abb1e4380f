"""seed_facts_demo: the agent's exact shapes, into an empty collection only."""

from __future__ import annotations

from datetime import datetime
from io import StringIO
from typing import Any

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from memory_app.facts import demo_data
from memory_app.facts.demo import facts_demo_documents
from memory_app.facts.lib import Fact, FactsStore, LegacyTurn
from memory_app.facts.lib.lint import agent_broken, lint
from memory_app.facts.lib.rules import cleanup_plan
from qqweb.lib.embeddings import HashingEmbedder


def test_it_refuses_an_embedder_that_is_not_the_agents(
    facts_store: FactsStore, settings: Any
) -> None:
    with pytest.raises(CommandError, match="all-MiniLM-L6-v2"):
        call_command("seed_facts_demo")
    assert facts_store.count() == 0


def test_it_writes_the_demo_in_the_agents_shapes(facts_store: FactsStore) -> None:
    out = StringIO()
    call_command("seed_facts_demo", "--any-model", stdout=out)
    docs = facts_store.documents()
    assert 200 <= len(docs) <= 240
    facts = [d for d in docs if isinstance(d, Fact)]
    turns = [d for d in docs if isinstance(d, LegacyTurn)]
    assert len(turns) == 6 and sum(1 for f in facts if f.is_legacy) == 4
    for doc in docs:
        assert doc.id_is_objectid and isinstance(doc.timestamp, datetime)
        assert doc.timestamp.microsecond % 1000 == 0
        assert doc.id_time == doc.timestamp.replace(microsecond=0)
        assert doc.extra == {}
    for fact in facts:
        if not fact.is_legacy:
            assert len(fact.content_embedding) == 384
            assert abs(np.linalg.norm(fact.content_embedding) - 1) < 1e-5
    assert sum(1 for f in facts if f.metadata) == 3
    assert not agent_broken(lint(docs, facts_store.indexes()))
    plan = cleanup_plan(facts)
    tie = [f.timestamp for f in facts if f.content in demo_data.TIE]
    assert len(tie) == 2 and tie[0] == tie[1]
    deleted = [d.deleted.text for d in plan.deletions]
    assert deleted.count(demo_data.EXACT_DUPLICATE) == 2
    assert "4 legacy facts" in out.getvalue()


def test_a_second_run_writes_nothing(facts_store: FactsStore) -> None:
    call_command("seed_facts_demo", "--any-model", stdout=StringIO())
    count = facts_store.count()
    out = StringIO()
    call_command("seed_facts_demo", "--any-model", stdout=out)
    assert facts_store.count() == count
    assert "not empty" in out.getvalue()


def test_the_turns_and_legacy_facts_are_dated_2025_04_20_in_the_agents_zone() -> None:
    docs = facts_demo_documents(HashingEmbedder(384))
    turns = [d for d in docs if "user_input" in d]
    assert min(d["timestamp"] for d in turns) >= datetime(2025, 4, 19, 17, 25)
    assert max(d["timestamp"] for d in turns) <= datetime(2025, 4, 19, 19, 39)


@pytest.mark.realmodel
def test_with_the_real_model_the_planted_pairs_are_deleted_at_the_next_start() -> None:
    from qqweb.lib.embeddings import SentenceTransformerEmbedder

    docs = facts_demo_documents(SentenceTransformerEmbedder("all-MiniLM-L6-v2"))
    facts = [
        Fact(
            id=d["_id"],
            content=d["content"],
            content_embedding=d.get("content_embedding", Fact.content_embedding),
            timestamp=d["timestamp"],
            metadata=d["metadata"],
        )
        for d in docs
        if d.get("type") == "fact"
    ]
    plan = cleanup_plan(facts)
    deleted = {d.deleted.text for d in plan.deletions}
    for older, newer, _ in demo_data.VALUE_CHANGED:  # the correction is what goes
        assert newer in deleted and older not in deleted, newer
    (minecraft, _), (terraria, _) = demo_data.CHAINS
    assert minecraft[1] in deleted and {minecraft[0], minecraft[2]}.isdisjoint(deleted)
    assert {terraria[0], terraria[2]} <= deleted and terraria[1] not in deleted
    [tie] = [d for d in plan.deletions if d.deleted.text in demo_data.TIE]
    assert tie.tie
