"""Exact states of entities and relationships, as curation reads and undo writes them.

Values are kept as the driver returns them (``neo4j.time`` types included) so that
writing a state back restores the graph exactly; ``to_json`` / ``from_json`` carry them
through the audit log losslessly (see :mod:`.snapshots`).

Relationships are identified the way the agent merges them: (start, type, end). Element
ids are recorded too, as a fast path, but a node that was deleted and recreated by an
undo gets a new element id, so endpoints are always checked against their label and
key (``name`` for entities, ``source_id`` for ``:Source`` nodes).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from graph_app.knowledge.snapshots import decode, encode

SOURCE_LABEL = "Source"


def entity_key(label: str, name: str) -> str:
    """An entity's identity as one string: ``Label:name``."""
    return f"{label}:{name}"


def pair_key(a: tuple[str, str], b: tuple[str, str]) -> tuple[str, str]:
    """Two entities' keys in a stable order (how remembered verdicts are stored)."""
    first, second = sorted([entity_key(*a), entity_key(*b)])
    return first, second


@dataclass(frozen=True)
class NodeRef:
    """Another node a relationship touches: its element id, labels and key."""

    id: str
    labels: tuple[str, ...]
    key: str | None

    @property
    def is_source(self) -> bool:
        return SOURCE_LABEL in self.labels

    @property
    def label(self) -> str:
        return self.labels[0] if self.labels else ""

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "labels": list(self.labels), "key": self.key}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> NodeRef:
        return cls(data["id"], tuple(data["labels"]), data["key"])


@dataclass
class RelState:
    """One relationship seen from its owner: ``outgoing`` when the owner is its start."""

    rid: str
    type: str
    outgoing: bool
    other: NodeRef
    props: dict[str, Any] = field(default_factory=dict)

    def merge_key(self, other_id: str | None = None) -> tuple[Any, ...]:
        """The agent's identity of a relationship, (type, direction, other end), plus, for
        an ``EVIDENCES`` edge, the ``rel_source`` and ``rel_type`` of the relationship it
        evidences: the agent merges those edges on both, so one Source can evidence
        several relationships of one entity."""
        extra = (
            (self.props.get("rel_source"), self.props.get("rel_type"))
            if self.type == "EVIDENCES"
            else None
        )
        return (self.type, self.outgoing, other_id or self.other.id, extra)

    def to_json(self) -> dict[str, Any]:
        return {
            "rid": self.rid,
            "type": self.type,
            "outgoing": self.outgoing,
            "other": self.other.to_json(),
            "props": encode(self.props),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RelState:
        return cls(
            data["rid"],
            data["type"],
            bool(data["outgoing"]),
            NodeRef.from_json(data["other"]),
            decode(data["props"]),
        )


@dataclass
class EntityState:
    """A node with every property and every relationship (``:Source`` ones included)."""

    id: str
    labels: list[str]
    props: dict[str, Any]
    rels: list[RelState] = field(default_factory=list)

    @property
    def label(self) -> str:
        return self.labels[0] if self.labels else ""

    @property
    def name(self) -> str:
        return str(self.props.get("name", ""))

    @property
    def ref(self) -> NodeRef:
        return NodeRef(self.id, tuple(self.labels), self.name)

    @property
    def entity_rels(self) -> list[RelState]:
        """Its relationships with other entities (the entity page's lists), without the
        provenance links to ``:Source`` nodes."""
        return [r for r in self.rels if not r.other.is_source]

    @property
    def sources(self) -> list[str]:
        """The ids of its provenance ``:Source`` nodes, each once (a source may link to it
        more than once)."""
        return sorted({r.other.id for r in self.rels if r.other.is_source})

    def fingerprint(self) -> str:
        """Equal for two reads of an unchanged node (relationship order aside)."""
        rels = sorted(
            (r.rid, r.type, r.outgoing, r.other.id, json.dumps(encode(r.props), sort_keys=True))
            for r in self.rels
        )
        return json.dumps(
            [sorted(self.labels), encode(self.props), rels], sort_keys=True, default=str
        )

    def props_fingerprint(self) -> str:
        return json.dumps(encode(self.props), sort_keys=True, default=str)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "labels": list(self.labels),
            "props": encode(self.props),
            "rels": [r.to_json() for r in self.rels],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> EntityState:
        return cls(
            data["id"],
            list(data["labels"]),
            decode(data["props"]),
            [RelState.from_json(r) for r in data["rels"]],
        )


@dataclass
class RelationshipState:
    """One relationship between two entities, by both ends."""

    rid: str
    type: str
    start: NodeRef
    end: NodeRef
    props: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        start, end = f"{self.start.label} {self.start.key!r}", f"{self.end.label} {self.end.key!r}"
        return f"({start})-[:{self.type}]->({end})"

    def fingerprint(self) -> str:
        return json.dumps(
            [self.rid, self.type, self.start.id, self.end.id, encode(self.props)],
            sort_keys=True,
            default=str,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "rid": self.rid,
            "type": self.type,
            "start": self.start.to_json(),
            "end": self.end.to_json(),
            "props": encode(self.props),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RelationshipState:
        return cls(
            data["rid"],
            data["type"],
            NodeRef.from_json(data["start"]),
            NodeRef.from_json(data["end"]),
            decode(data["props"]),
        )
