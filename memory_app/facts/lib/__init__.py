"""The facts library: the second agent's memory (seed 004, ``facts-data-contract.md``).

Framework-free like ``memory_app.notes.lib`` (no Django), which it builds on for errors,
error classification and the layout guard:

- ``domain.py``: :class:`Fact`, :class:`LegacyTurn`, :class:`ForeignDocument`, embedding
  states;
- ``store.py``: :class:`FactsStore`, the only code that speaks pymongo to the facts;
- ``rules.py``: the agent's add test, next-start cleanup and retrieval as pure functions;
- ``lint.py``: what in the collection would break the agent;
- ``uri.py``: the database, chosen as the agent chooses it.
"""

from memory_app.facts.lib.constants import AGENT_MODEL, DIMENSION, DUPLICATE_THRESHOLD
from memory_app.facts.lib.domain import (
    MISSING,
    EmbeddingState,
    Fact,
    ForeignDocument,
    LegacyTurn,
    StoredDocument,
)
from memory_app.facts.lib.store import FactNotFound, FactQuery, FactsPage, FactsStore
from memory_app.facts.lib.uri import FactsConfigError, facts_database

__all__ = [
    "AGENT_MODEL",
    "DIMENSION",
    "DUPLICATE_THRESHOLD",
    "MISSING",
    "EmbeddingState",
    "Fact",
    "FactNotFound",
    "FactQuery",
    "FactsConfigError",
    "FactsPage",
    "FactsStore",
    "ForeignDocument",
    "LegacyTurn",
    "StoredDocument",
    "facts_database",
]
