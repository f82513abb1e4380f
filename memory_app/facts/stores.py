"""Wiring: the facts library's store built from settings (cheap, no I/O; the client is
shared per process)."""

from __future__ import annotations

from django.conf import settings

from memory_app.facts.lib import (
    AGENT_MODEL,
    DIMENSION,
    FactsConfigError,
    FactsStore,
    facts_database,
)
from memory_app.facts.lib.errors import AgentModelRequired, InvalidFact
from qqweb.lib.clients import embedder as configured_embedder
from qqweb.lib.clients import facts_mongo_client
from qqweb.lib.embeddings import Embedder
from qqweb.lib.errors import NotFound


class FactsOff(NotFound):
    """``QQ_FACTS_MONGO_URI`` is not set: the facts pages and API are off (404)."""

    code = "facts_off"


def facts_enabled() -> bool:
    return bool(settings.QQ_FACTS_MONGO_URI)


def facts_configuration_error() -> str:
    """'' when the facts settings are usable (or off), else what is wrong."""
    if not facts_enabled():
        return ""
    try:
        facts_database(settings.QQ_FACTS_MONGO_URI, settings.QQ_FACTS_MONGO_DB)
    except FactsConfigError as e:
        return str(e)
    return ""


def facts_store() -> FactsStore:
    """The facts store of the settings; :class:`FactsOff` when the URI is not set,
    :class:`FactsConfigError` when no database can be named."""
    if not facts_enabled():
        raise FactsOff("the facts store is off: QQ_FACTS_MONGO_URI is not set")
    return FactsStore(
        facts_mongo_client(),
        facts_database(settings.QQ_FACTS_MONGO_URI, settings.QQ_FACTS_MONGO_DB),
        settings.QQ_FACTS_COLLECTION,
    )


def agent_embedding(text: str, embedder: Embedder | None = None) -> list[float]:
    """The agent's embedding of ``text``: all-MiniLM-L6-v2 only (by name, not only by
    dimension: a 384-d hashing vector would fit and poison the agent's comparisons), as
    the 384 Python floats the agent stores."""
    model = embedder or configured_embedder()
    if model.model_name.rsplit("/", 1)[-1].lower() != AGENT_MODEL.lower():
        raise AgentModelRequired(model.model_name)
    vector = [float(x) for x in model.embed([text])[0].tolist()]
    if len(vector) != DIMENSION:
        raise AgentModelRequired(model.model_name, len(vector))
    if not any(vector):
        raise InvalidFact("content", "embeds to a zero vector, which the agent never saves")
    return vector
