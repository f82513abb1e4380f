"""The knowledge-graph library: framework-free wrapper over the official Neo4j driver."""

from .errors import (
    EntityNotFound,
    GraphError,
    GraphRefusal,
    GraphStoreError,
    GraphUnavailable,
    InvalidIdentifier,
)
from .identifiers import checked_label, checked_rel_type
from .store import GraphStore

__all__ = [
    "EntityNotFound",
    "GraphError",
    "GraphRefusal",
    "GraphStore",
    "GraphStoreError",
    "GraphUnavailable",
    "InvalidIdentifier",
    "checked_label",
    "checked_rel_type",
]
