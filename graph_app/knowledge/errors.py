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


class AmbiguousEntity(GraphError):
    """More than one node answers to a lookup that should name one entity."""

    def __init__(self, name: str, labels: list[str]) -> None:
        super().__init__(
            f"{name!r} is ambiguous: it names {len(labels)} entities "
            f"({', '.join(sorted(labels))}); say which label you mean"
        )
        self.name = name
        self.labels = sorted(labels)


class NameTaken(GraphError):
    def __init__(self, label: str, name: str) -> None:
        super().__init__(f"there is already a {label} named {name!r}; merge the two instead")
        self.label = label
        self.name = name


class EntityChanged(GraphError):
    """A write was prepared from a state the graph no longer has (the agent wrote since)."""

    def __init__(self, what: str) -> None:
        super().__init__(
            f"{what} changed in the graph after it was read (the agent, or another "
            "curator, wrote since); reload it and try again"
        )
        self.what = what


class InvalidGraphValue(GraphError):
    """A value for a curation action that the graph cannot take, naming the field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class RelationshipNotFound(GraphError):
    def __init__(self, description: str) -> None:
        super().__init__(f"there is no relationship {description}")
        self.description = description
