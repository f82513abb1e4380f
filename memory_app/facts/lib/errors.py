"""Errors of the facts library's writes (reads raise ``FactNotFound`` from the store)."""

from __future__ import annotations

from memory_app.facts.lib.constants import AGENT_MODEL, DIMENSION
from memory_app.notes.lib.errors import MemoryLibraryError


class AgentModelRequired(MemoryLibraryError):
    """The configured embedder is not the agent's all-MiniLM-L6-v2: a vector from any
    other model (even a 384-d one) poisons the agent's comparisons (contract 4.4 rule 1),
    so nothing is written."""

    def __init__(self, model: str, dimension: int | None = None) -> None:
        made = f", which makes {dimension}-d vectors" if dimension is not None else ""
        super().__init__(
            f"the facts agent compares {DIMENSION}-d vectors from {AGENT_MODEL}; the configured "
            f"embedder is {model!r}{made}, so nothing was written. Set "
            f"QQ_EMBEDDING_BACKEND=sentence-transformers and QQ_EMBEDDING_MODEL={AGENT_MODEL}"
        )
        self.model = model


class FactChanged(MemoryLibraryError):
    """A write found the fact other than the curator saw it: another curator edited it,
    or the agent replaced it (its update is a delete then an insert) or deleted it."""

    def __init__(self, fact_id: str, reason: str) -> None:
        super().__init__(
            f"fact {fact_id} changed since you loaded it: {reason}; nothing was written"
        )
        self.fact_id = fact_id
        self.reason = reason
