"""The facts demo (``facts-data-contract.md`` section 5): about 220 documents written
exactly as the agent writes them, into an empty collection only. The planted cases are
in ``demo_data.py`` (the manifest), not marked in the data.

Vectors come from the configured embedder; ``seed_facts_demo`` refuses any model but the
agent's all-MiniLM-L6-v2 unless told otherwise (tests use the hashing embedder). They are
embedded in one batch; the agent embeds one text at a time (a difference of about 1e-7,
which matters only for the borderline pair at 0.95005).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from memory_app.facts import demo_data as data
from memory_app.facts.lib.domain import FactId, fact_id_at
from memory_app.facts.stores import facts_store
from qqweb.lib.embeddings import Embedder

ICT = timedelta(hours=7)  # the agent's author is at +0700; stored dates are UTC


@dataclass(frozen=True)
class FactsDemoReport:
    written: int
    facts: int
    legacy_facts: int
    turns: int
    skipped: str = ""  # why nothing was written


def _utcnow_ms() -> datetime:
    now = datetime.now(UTC).replace(tzinfo=None)
    return now.replace(microsecond=now.microsecond // 1000 * 1000)


class _Ids:
    """ObjectIds whose embedded time is the document's timestamp: 4 time bytes, then
    random and counter bytes (``ObjectId.from_datetime`` would zero-fill them)."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._random = rng.randbytes(5)
        self._counter = rng.randrange(1 << 24)

    def at(self, when: datetime) -> FactId:
        self._counter = (self._counter + 1) % (1 << 24)
        return fact_id_at(when, self._random + self._counter.to_bytes(3, "big"))


def _ms(when: datetime) -> datetime:
    return when.replace(microsecond=when.microsecond // 1000 * 1000)


def facts_demo_plan(*, seed: int = 7, now: datetime | None = None) -> list[dict[str, Any]]:
    """The demo's documents without vectors: ``_text`` marks the facts to embed."""
    rng = random.Random(seed)
    now = now or _utcnow_ms()
    planned: list[dict[str, Any]] = []

    def fact(text: str, when: datetime, metadata: dict[str, Any] | None = None) -> None:
        planned.append({"_text": text, "timestamp": _ms(when), "metadata": metadata or {}})

    def days_ago(low: float, high: float) -> datetime:
        return now - timedelta(days=rng.uniform(low, high))

    ordinary = [t for theme in data.THEMES.values() for t in theme] + data.templated_facts()
    rng.shuffle(ordinary)
    i = 0
    while i < len(ordinary):  # bursts: a few facts in the same minute, as in one chat turn
        start = days_ago(1, 400)
        for k in range(rng.randint(1, 5)):
            if i < len(ordinary):
                fact(ordinary[i], start + timedelta(seconds=7 * k + rng.random()))
                i += 1
    for older, newer, _ in data.VALUE_CHANGED:
        first = days_ago(120, 380)
        fact(older, first)
        fact(newer, first + timedelta(days=rng.uniform(5, 100)))
    for sentences, order in data.CHAINS:
        start = days_ago(60, 300)
        for rank, index in enumerate(order):
            fact(sentences[index], start + timedelta(days=3 * rank))
    for rank in range(3):
        fact(data.EXACT_DUPLICATE, days_ago(30, 90) - timedelta(days=40 * rank))
    tie_time = days_ago(10, 50)
    for text in data.TIE:
        fact(text, tie_time)
    for near_older, near_newer, _ in data.NEAR_MISSES:
        when = days_ago(20, 200)
        if near_older:
            fact(near_older, when - timedelta(days=9))
        fact(near_newer, when)
    for synthetic, metadata in data.WITH_METADATA:
        fact(synthetic, days_ago(5, 200), metadata)

    legacy_start = datetime(2025, 4, 20, 0, 25) - ICT
    for k, text in enumerate(data.LEGACY_FACTS):
        planned.append(
            {
                "type": "fact",
                "content": text,
                "timestamp": _ms(legacy_start + timedelta(minutes=5 + 140 * k)),
                "metadata": {},
            }
        )
    for k, (user_input, llm_response) in enumerate(data.LEGACY_TURNS):
        planned.append(
            {
                "user_input": user_input,
                "llm_response": llm_response,
                "timestamp": _ms(legacy_start + timedelta(minutes=1 + 26 * k)),
                "metadata": {},
            }
        )
    planned.sort(key=lambda d: d["timestamp"])  # inserted in time order, as the agent did
    ids = _Ids(rng)
    for doc in planned:
        doc["_id"] = ids.at(doc["timestamp"])
    return planned


def facts_demo_documents(
    embedder: Embedder, *, seed: int = 7, now: datetime | None = None
) -> list[dict[str, Any]]:
    """The demo's documents in the agent's exact shapes, vectors included."""
    planned = facts_demo_plan(seed=seed, now=now)
    texts = [d["_text"] for d in planned if "_text" in d]
    vectors = iter(embedder.embed(texts)) if texts else iter([])
    out = []
    for doc in planned:
        if "_text" in doc:
            text = doc.pop("_text")
            vector = [float(x) for x in next(vectors)]
            doc = {
                "_id": doc["_id"],
                "type": "fact",
                "content": text,
                "content_embedding": vector,
                "timestamp": doc["timestamp"],
                "metadata": doc["metadata"],
            }
        out.append(doc)
    return out


def facts_demo_seed(*, embedder: Embedder, seed: int = 7) -> FactsDemoReport:
    """Fill the configured facts collection with the demo, when it is empty."""
    store = facts_store()
    if store.count():
        return FactsDemoReport(0, 0, 0, 0, skipped="the facts collection is not empty")
    docs = facts_demo_documents(embedder, seed=seed)
    written = store.insert_into_empty(docs)
    facts = [d for d in docs if d.get("type") == "fact"]
    legacy = sum(1 for d in facts if "content_embedding" not in d)
    return FactsDemoReport(written, len(facts) - legacy, legacy, len(docs) - len(facts))
