"""Typed domain objects of the knowledge graph, as :class:`GraphStore` returns them to be
read: selectors, services, templates and the API's schemas use these, never raw rows.

Values are plain Python (Neo4j temporal values become ``datetime``, see ``values.py``).
The exact states that curation writes and undo restores are another thing: they live in
``states.py`` and keep every property raw, nanosecond DateTimes included.

An :class:`Entity` models the properties of the data contract (``name``, ``description``,
``aliases``, ``mention_count``, ``first_seen``, ...). What the agent writes that we do not
model, or a modelled property holding a value of an unexpected type, is kept in
``extra`` exactly as read: never dropped, never coerced.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

SOURCE_LABEL = "Source"


def _text(value: Any) -> bool:
    return isinstance(value, str)


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _moment(value: Any) -> bool:
    return isinstance(value, datetime)


def _texts(value: Any) -> bool:
    return isinstance(value, list | tuple) and all(isinstance(v, str) for v in value)


# The entity properties of the data contract, and what a value must be to be taken as one.
# ``name`` and ``embedding`` are handled apart.
ENTITY_FIELDS: dict[str, Callable[[Any], bool]] = {
    "description": _text,
    "aliases": _texts,
    "mention_count": _count,
    "first_seen": _moment,
    "last_seen": _moment,
    "notes": _text,
    "confidence": _number,
    "canonical_name": _text,
    "source_first_id": _text,
    "source_latest_id": _text,
}


@dataclass(frozen=True)
class EntityRef:
    """An entity named by the agent's identity of it: (label, name)."""

    label: str
    name: str


@dataclass(frozen=True)
class Entity:
    """An entity node (never a ``:Source``) with its properties, the embedding aside: only
    its dimension is read (``None`` when it has none)."""

    id: str  # Neo4j element id
    label: str
    name: str
    labels: tuple[str, ...] = ()
    description: str | None = None
    aliases: tuple[str, ...] = ()
    mention_count: int | None = None
    first_seen: datetime | None = None
    last_seen: datetime | None = None
    embedding_dimension: int | None = None
    notes: str | None = None
    confidence: float | None = None
    canonical_name: str | None = None
    source_first_id: str | None = None
    source_latest_id: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def mentions(self) -> int:
        return self.mention_count or 0

    @property
    def ref(self) -> EntityRef:
        return EntityRef(self.label, self.name)

    def properties(self) -> dict[str, Any]:
        """Every property the node has (the embedding aside), as read: the modelled ones
        that are set, and ``extra``."""
        props: dict[str, Any] = {"name": self.name} if "name" not in self.extra else {}
        for key in ENTITY_FIELDS:
            value = getattr(self, key)
            if key == "aliases":
                if value:
                    props[key] = list(value)
            elif value is not None:
                props[key] = value
        return {**props, **self.extra}

    @classmethod
    def from_properties(
        cls,
        element_id: str,
        labels: Sequence[str],
        props: Mapping[str, Any],
        embedding_dimension: int | None = None,
    ) -> Entity:
        """An entity from its node's properties: each modelled property is taken when its
        value has the expected type; everything else stays in ``extra``."""
        rest = dict(props)
        embedding = rest.pop("embedding", None)
        if embedding_dimension is None and isinstance(embedding, list | tuple) and embedding:
            embedding_dimension = len(embedding)
        taken: dict[str, Any] = {}
        for key, fits in ENTITY_FIELDS.items():
            if key in rest and fits(rest[key]):
                taken[key] = rest.pop(key)
        if "aliases" in taken:
            taken["aliases"] = tuple(taken["aliases"])
        name = rest.pop("name") if isinstance(rest.get("name"), str) else ""
        return cls(
            id=element_id,
            label=labels[0] if labels else "",
            name=name,
            labels=tuple(labels),
            embedding_dimension=embedding_dimension,
            extra=rest,
            **taken,
        )


@dataclass(frozen=True)
class EntityPage:
    """One keyset page of entities; ``next_after`` is the (sort key, element id) to
    continue after, ``None`` on the last page."""

    items: list[Entity]
    next_after: tuple[Any, str] | None = None


@dataclass(frozen=True)
class EntitySummary:
    """An entity as lists and graphs show it: its element id, identity and mentions."""

    id: str
    label: str
    name: str | None
    mentions: int = 0


@dataclass(frozen=True)
class OrphanEntity:
    """An entity with no relationship to another entity (provenance does not count)."""

    id: str
    label: str
    name: str | None


@dataclass(frozen=True)
class EntityEmbedding:
    """An entity's ``"name: description"`` embedding, for semantic search and duplicates."""

    id: str
    label: str
    name: str | None
    description: str | None
    mentions: int
    vector: Sequence[float]

    @property
    def summary(self) -> EntitySummary:
        return EntitySummary(self.id, self.label, self.name, self.mentions)


@dataclass(frozen=True)
class Relationship:
    """A relationship of an entity to another entity (provenance apart), seen from the
    entity: ``outgoing`` when the entity is its start. ``props`` are all its properties
    (an embedding aside), as read."""

    id: str
    type: str
    outgoing: bool
    other_label: str
    other_name: str | None
    props: Mapping[str, Any] = field(default_factory=dict)

    @property
    def description(self) -> str | None:
        value = self.props.get("description")
        return value if isinstance(value, str) else None

    @property
    def evidence(self) -> str | None:
        value = self.props.get("evidence")
        return value if isinstance(value, str) else None

    @property
    def mention_count(self) -> int | None:
        value = self.props.get("mention_count")
        return value if _count(value) else None


@dataclass(frozen=True)
class TypedRelationship:
    """A relationship between two entities, seen from neither (the relationships list)."""

    id: str
    type: str
    start_label: str
    start_name: str | None
    end_label: str
    end_name: str | None


@dataclass(frozen=True)
class RelationshipPage:
    items: list[TypedRelationship]
    next_after: str | None = None  # the last one's element id, when there are more


@dataclass(frozen=True)
class ProvenanceLink:
    """A ``:Source`` node an entity was extracted from (``EXTRACTED_FROM``): provenance,
    not an entity. ``props`` are all the source's properties."""

    id: str
    source_id: str | None
    props: Mapping[str, Any] = field(default_factory=dict)

    @property
    def source_type(self) -> str | None:
        value = self.props.get("source_type")
        return value if isinstance(value, str) else None

    @property
    def file_path(self) -> str | None:
        value = self.props.get("file_path")
        return value if isinstance(value, str) else None


@dataclass(frozen=True)
class GraphEdge:
    """A relationship drawn in a neighbourhood, by element ids."""

    id: str
    source: str
    target: str
    type: str


@dataclass(frozen=True)
class GraphNode:
    """A node drawn in a neighbourhood: an entity (``kind="entity"``, with its mentions
    and its number of entity neighbours, ``degree``) or a ``:Source`` (``kind="source"``,
    with a ``detail``: its file path or source type). ``level`` is the distance from the
    centre."""

    id: str
    label: str
    name: str | None
    kind: str
    level: int
    mentions: int | None = None
    degree: int | None = None
    detail: str | None = None

    def as_json(self) -> dict[str, Any]:
        """The node for the API and the page's script: an entity has no ``detail``, a
        source neither ``mentions`` nor ``degree``."""
        data: dict[str, Any] = {
            "id": self.id,
            "label": self.label,
            "name": self.name,
            "kind": self.kind,
            "level": self.level,
        }
        if self.kind == "entity":
            data.update(mentions=self.mentions or 0, degree=self.degree or 0)
        else:
            data["detail"] = self.detail or ""
        return data


@dataclass(frozen=True)
class SameNameGroup:
    """Entities whose names are equal ignoring case (``key``, lower-cased)."""

    key: str
    entities: tuple[EntitySummary, ...]


@dataclass(frozen=True)
class RecreatedName:
    """An entity (``entity``) named like an alias of another of its label (``holder``):
    after a rename or a merge the agent, which never reads aliases, created it again."""

    holder: EntitySummary
    entity: EntitySummary


@dataclass(frozen=True)
class SuggestedIndex:
    """An index that makes our lookups fast, and whether it exists."""

    label: str
    property: str
    exists: bool


@dataclass(frozen=True)
class RelationshipRef:
    """A relationship as a merge or delete preview lists it: its type, its direction from
    the entity, the other end (``provenance`` when it is a ``:Source``)."""

    type: str
    direction: str  # "out" or "in"
    other_label: str
    other_name: str | None
    provenance: bool = False
