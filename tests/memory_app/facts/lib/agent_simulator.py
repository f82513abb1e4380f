"""A small re-implementation of the facts agent from its data contract: the cleanup (W3)
pair by pair as the agent runs it, to check the blocked plan against, and
:class:`SimulatedAgent` (add, update, start, retrieval) on a real collection."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import numpy as np
from bson import ObjectId

from memory_app.facts.lib.domain import MISSING, Fact, document_from_bson
from memory_app.facts.lib.rules import bson_sort_key


def agent_cleanup(facts: list[Fact]) -> set[str]:
    """The ids the agent's next start deletes (raises, as the agent does, on a bad vector)."""
    with_vector = [f for f in facts if f.type == "fact" and f.content_embedding is not MISSING]
    ordered = sorted(with_vector, key=lambda f: bson_sort_key(f.timestamp))
    usable = []
    for fact in ordered:
        vector = np.array(fact.content_embedding, dtype=np.float64)
        if vector.size == 0 or not np.linalg.norm(vector):
            continue  # skipped with a warning
        usable.append((fact, vector))
    marked: set[str] = set()
    for i, (anchor, va) in enumerate(usable):
        if anchor.hex_id in marked:
            continue
        for other, vb in usable[i + 1 :]:
            if other.hex_id in marked:
                continue
            if np.dot(va, vb) / (np.linalg.norm(va) * np.linalg.norm(vb)) >= 0.95:
                marked.add(other.hex_id)
    return marked


class SimulatedAgent:
    """The facts agent as its data contract describes it (2.5, 2.6), on the real
    collection: add (W1), update (W2: delete, then insert of a new document), the start's
    cleanup (W3, deleting) and the automatic retrieval (top 3, no floor). Written from
    the contract, not from qqweb's rules."""

    def __init__(self, collection: Any, embedder: Any) -> None:
        self.collection = collection
        self.embedder = embedder

    def _embed(self, text: str) -> list[float]:
        return [float(x) for x in self.embedder.embed([text])[0].tolist()]

    def _facts(self) -> list[Fact]:
        query = {"type": "fact", "content_embedding": {"$exists": True}}
        return [document_from_bson(d) for d in self.collection.find(query)]  # type: ignore[misc]

    def add(self, content: str) -> Any:
        """W1: None when a fact is at >= 0.95 (or the vector is zero)."""
        vector = np.array(self._embed(content))
        if not np.linalg.norm(vector):
            return None
        for fact in self._facts():
            other = np.array(fact.content_embedding, dtype=np.float64)
            if np.dot(vector, other) / (np.linalg.norm(vector) * np.linalg.norm(other)) >= 0.95:
                return None
        doc = {
            "type": "fact",
            "content": content,
            "content_embedding": vector.tolist(),
            "timestamp": _utcnow_ms(),
            "metadata": {},
        }
        return self.collection.insert_one(doc).inserted_id

    def update(self, fact_id: Any, content: str) -> Any:
        """W2: delete the old document, then insert a new one (new _id, timestamp now, no
        duplicate check)."""
        if self.collection.delete_one({"_id": fact_id, "type": "fact"}).deleted_count != 1:
            return None
        doc = {
            "type": "fact",
            "content": content,
            "content_embedding": self._embed(content),
            "timestamp": _utcnow_ms(),
            "metadata": {},
        }
        return self.collection.insert_one(doc).inserted_id

    def plan_start(self) -> set[str]:
        """The ids the next start deletes (without deleting them)."""
        return agent_cleanup(self._facts())

    def start(self) -> set[str]:
        """W3: delete what the cleanup marks; returns the deleted ids."""
        marked = self.plan_start()
        for hex_id in marked:
            self.collection.delete_one({"_id": ObjectId(hex_id)})
        return marked

    def retrieve(self, message: str, k: int = 3) -> list[dict[str, Any]]:
        """The automatic retrieval: [{_id, content}] of the top 3 by cosine, no floor."""
        query = np.array(self._embed(message))
        scored = []
        for fact in self._facts():
            v = np.array(fact.content_embedding, dtype=np.float64)
            if not v.size or not np.linalg.norm(v):
                continue
            scored.append(
                (float(np.dot(query, v) / (np.linalg.norm(query) * np.linalg.norm(v))), fact)
            )
        scored.sort(key=lambda s: s[0], reverse=True)
        return [{"_id": str(f.id), "content": f.content} for _, f in scored[:k]]


def _utcnow_ms() -> datetime:
    now = datetime.now(UTC).replace(tzinfo=None)
    return now.replace(microsecond=now.microsecond // 1000 * 1000)
