"""The knowledge-graph library: framework-free wrapper over the official Neo4j driver."""

from graph_app.knowledge.errors import (
    EntityNotFound,
    GraphError,
    GraphRefusal,
    GraphStoreError,
    GraphUnavailable,
    InvalidIdentifier,
)
from graph_app.knowledge.identifiers import checked_label, checked_rel_type
from graph_app.knowledge.store import GraphStore

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
