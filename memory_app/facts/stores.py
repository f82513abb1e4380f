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
from memory_app.facts.lib.extjson import content_hash
from memory_app.facts.models import JudgedPair
from qqweb.lib.clients import embedder as configured_embedder
from qqweb.lib.clients import facts_mongo_client
from qqweb.lib.embeddings import Embedder
from qqweb.lib.errors import NotFound
from qqweb.lib.judge.model import judge_available, judge_pairs


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


def judged_pairs(pairs: list[tuple[str, str]]) -> dict[tuple[str, str], list[float]]:
    """The pair judge's probabilities of each (older, newer) pair of texts: read from
    :class:`JudgedPair` where a page already judged it, the others judged now in one batch
    and kept. Empty when the judge is not installed (the rules alone judge then)."""
    if not pairs or not judge_available():
        return {}
    keys = {pair: (content_hash(pair[0]), content_hash(pair[1])) for pair in pairs}
    known = {
        (row.hash_older, row.hash_newer): row.judged
        for row in JudgedPair.objects.filter(
            hash_older__in={k[0] for k in keys.values()},
            hash_newer__in={k[1] for k in keys.values()},
        )
    }
    todo = sorted({pair for pair, key in keys.items() if key not in known})
    judged = judge_pairs(todo) or []
    for pair, row in zip(todo, judged, strict=True):
        known[keys[pair]] = row
    JudgedPair.objects.bulk_create(
        [
            JudgedPair(hash_older=keys[p][0], hash_newer=keys[p][1], judged=r)
            for p, r in zip(todo, judged, strict=True)
        ],
        ignore_conflicts=True,
    )
    return {pair: known[key] for pair, key in keys.items() if key in known}
