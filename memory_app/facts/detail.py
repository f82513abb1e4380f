"""One fact's page: the document with every field in words, its nearest facts, what the
agent's next start does to it and what the lint finds (``selectors.fact_detail``)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memory_app.facts.lib import Fact, StoredDocument
from memory_app.facts.lib.constants import DUPLICATE_THRESHOLD, SIMILAR_THRESHOLD
from memory_app.facts.lib.domain import MISSING
from memory_app.facts.lib.lint import Finding, lint
from memory_app.facts.lib.rules import Deletion, cleanup_plan, nearest
from memory_app.facts.stores import facts_store
from qqweb.lib.words import key_words

EMBEDDING_WORDS = {  # the stored vector's state (EmbeddingState) in words
    "ok": "usable",
    "missing": "missing: no vector stored, so the agent never retrieves it",
    "empty": "empty: the agent skips it",
    "zero": "all zeros: the agent skips it",
    "invalid": "invalid: it breaks the agent's retrieval, add and cleanup",
}


def as_json(value: Any) -> str:
    """A stored value as JSON text (dates and ids as their text), never a Python repr."""
    return json.dumps(value, ensure_ascii=False, default=str)


def field_rows(data: Mapping[str, Any]) -> list[tuple[str, str]]:
    """A dict's fields as (key in words, value) rows: text as it is, anything else JSON."""
    return [(key_words(str(k)), v if isinstance(v, str) else as_json(v)) for k, v in data.items()]


@dataclass(frozen=True)
class Neighbour:
    fact: Fact
    score: float
    mark: str  # "duplicate" (>= 0.95: the agent treats it as one), "similar" (>= 0.85), ""


@dataclass(frozen=True)
class FactDetail:
    doc: StoredDocument
    id_time: datetime | None
    dimension: int | None
    norm: float | None
    embedding: str
    neighbours: list[Neighbour]
    deleted_by: Deletion | None  # this fact goes at the next start
    deletes: list[Deletion] = field(default_factory=list)  # facts this one deletes
    findings: list[Finding] = field(default_factory=list)

    @property
    def vector_words(self) -> str:
        """The stored vector as a curator reads it: "384 numbers, length 1.00" (the agent
        stores unit vectors), or why there is none usable ("missing: no vector stored")."""
        state = EMBEDDING_WORDS.get(self.embedding, self.embedding)
        if self.dimension is None:
            return state
        length = f", length {self.norm:.2f}" if self.norm is not None else ""
        return f"{self.dimension} numbers{length}" + (
            "" if self.embedding == "ok" else f": {state}"
        )

    @property
    def metadata_rows(self) -> list[tuple[str, str]]:
        """``metadata`` as (key, value) rows in words; [] when it is empty or absent."""
        metadata = self.doc.metadata
        return field_rows(metadata) if isinstance(metadata, Mapping) else []

    @property
    def metadata_words(self) -> str:
        """What to say of a ``metadata`` with no rows: "none" (``{}``), "not stored", or a
        value of another type as JSON."""
        metadata = self.doc.metadata
        if metadata is MISSING:
            return "not stored"
        if isinstance(metadata, Mapping):
            return "none" if not metadata else ""
        return as_json(metadata)

    @property
    def other_fields(self) -> list[tuple[str, str]]:
        """The stored fields no rule of the agent reads (``extra``), as (name, JSON) rows."""
        return [(name, as_json(value)) for name, value in self.doc.extra.items()]


def _mark(score: float) -> str:
    if score >= DUPLICATE_THRESHOLD:
        return "duplicate"
    if score >= SIMILAR_THRESHOLD:
        return "similar"
    return ""


def fact_detail(fact_id: str, *, neighbours: int = 10) -> FactDetail:
    store = facts_store()
    doc = store.get(fact_id)
    docs = store.documents()
    facts = [d for d in docs if isinstance(d, Fact)]
    dimension = norm = None
    embedding = ""
    near: list[Neighbour] = []
    deleted_by = None
    deletes: list[Deletion] = []
    if isinstance(doc, Fact):
        embedding = doc.embedding.value
        vector = doc.content_embedding
        if isinstance(vector, list):
            dimension = len(vector)
            if all(isinstance(x, int | float) for x in vector):
                norm = math.sqrt(sum(float(x) * float(x) for x in vector))
        near = [Neighbour(r.fact, r.score, _mark(r.score)) for r in nearest(doc, facts, neighbours)]
        plan = cleanup_plan(facts)
        deleted_by = next((d for d in plan.deletions if d.deleted.hex_id == doc.hex_id), None)
        deletes = [d for d in plan.deletions if d.anchor.hex_id == doc.hex_id]
    findings = [f for f in lint([doc], []) if f.target == doc.hex_id]
    return FactDetail(
        doc=doc,
        id_time=doc.id_time,
        dimension=dimension,
        norm=norm,
        embedding=embedding,
        neighbours=near,
        deleted_by=deleted_by,
        deletes=deletes,
        findings=findings,
    )
