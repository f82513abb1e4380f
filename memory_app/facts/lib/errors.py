"""Errors of the facts library's writes (reads raise ``FactNotFound`` from the store)."""

from __future__ import annotations

from memory_app.facts.lib.constants import AGENT_MODEL, DIMENSION
from qqweb.lib.errors import Conflict, InvalidInput, NotFound, Refused


class InvalidFact(InvalidInput):
    """A fact, a field of one or a value for one does not fit the facts data contract
    (400), naming the field; a cursor the list did not give is one too (``cursor``)."""


class AgentModelRequired(Refused):
    """The configured embedder is not the agent's all-MiniLM-L6-v2: a vector from any
    other model (even a 384-d one) poisons the agent's comparisons (contract 4.4 rule 1),
    so nothing is written (422)."""

    status = 422
    code = "wrong_embedder"

    def __init__(self, model: str, dimension: int | None = None) -> None:
        made = f", which makes {dimension}-d vectors" if dimension is not None else ""
        super().__init__(
            f"the facts agent compares {DIMENSION}-d vectors from {AGENT_MODEL}; the configured "
            f"embedder is “{model}”{made}, so nothing was written. Set "
            f"QQ_EMBEDDING_BACKEND=sentence-transformers and QQ_EMBEDDING_MODEL={AGENT_MODEL}"
        )
        self.model = model

    def details(self) -> dict[str, object]:
        return {"model": self.model}


class FactChanged(Conflict):
    """A write found the fact other than the curator saw it: another curator edited it,
    or the agent replaced it (its update is a delete then an insert) or deleted it (409)."""

    code = "stale"

    def __init__(self, fact_id: str, reason: str) -> None:
        super().__init__(
            f"fact {fact_id} changed since you loaded it: {reason}; nothing was written"
        )
        self.fact_id = fact_id
        self.reason = reason

    def details(self) -> dict[str, object]:
        return {"fact_id": self.fact_id}


class FactReplaced(FactChanged):
    """The fact a write names is gone and another fact holds its place now (409 ``stale``,
    naming it in ``replaced_by``): the agent's update replaced it (a delete, then an insert
    under a new ``_id``), or its cleanup deleted it as a copy of an older fact."""

    def __init__(self, fact_id: str, replaced_by: str, text: str, how: str) -> None:
        quoted = text if len(text) <= 80 else f"{text[:79]}…"
        super().__init__(fact_id, f"{how}: it is {replaced_by} now ({quoted!r})")
        self.replaced_by = replaced_by

    def details(self) -> dict[str, object]:
        return {"fact_id": self.fact_id, "replaced_by": self.replaced_by}


class FactGone(FactChanged, NotFound):
    """The fact a write names is not in the collection and nothing says it ever was (404):
    neither qqweb's tracker nor its archive knows it, and no fact looks like its
    replacement. (A fact known to be replaced or deleted since is a 409 ``stale``.)
    A :class:`FactChanged`, so a page tells it as one."""

    status = 404
    code = "not_found"

    def __init__(self, fact_id: str) -> None:
        super().__init__(
            fact_id,
            "there is no such fact (it never was, or the agent deleted it before qqweb saw it)",
        )
