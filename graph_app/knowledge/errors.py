"""Errors of the knowledge-graph library; driver errors are re-raised as these ``from e``."""

from __future__ import annotations


class GraphError(Exception):
    """Base class of every error the graph library raises on purpose."""


class GraphUnavailable(GraphError):
    def __init__(self, message: str) -> None:
        super().__init__(f"neo4j is unavailable: {message}")
        self.store = "neo4j"
        self.message = message


class InvalidIdentifier(GraphError):
    """A label or relationship type that may not be put into a Cypher query."""

    def __init__(self, field: str, value: str) -> None:
        super().__init__(
            f"{field} {value!r} is not allowed: use letters, digits and '_' "
            "(starting with a letter), at most 64 characters"
        )
        self.field = field
        self.value = value


class EntityNotFound(GraphError):
    def __init__(self, label: str, name: str) -> None:
        super().__init__(f"there is no {label} named {name!r}")
        self.label = label
        self.name = name
