"""The graph's part in export and import: every node and relationship with all its
properties exactly as stored (``neo4j.time`` values with their nanoseconds, the
difference between ``DateTime`` and ``LocalDateTime``), streamed from one read
transaction a fetch at a time, and created back in batches.

Nodes are exported first, each with its element id; relationships name their ends by
those ids, so an import maps them to the nodes it created (or, into a graph that already
holds them, found). Into a graph that holds things already, a node is the same node when
it has the same label and ``name`` (an entity) or ``source_id`` (a ``:Source``); it is
kept as it is, never overwritten, and a relationship is added only when the agent's
merge key (type and both ends; for ``EVIDENCES`` also ``rel_source`` and ``rel_type``)
finds none.
"""

from __future__ import annotations

import base64
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, LiteralString, cast

from neo4j import Driver, Query
from neo4j import time as neo4j_time
from neo4j.spatial import Point

from graph_app.knowledge.errors import InvalidGraphValue, driver_errors_classified
from graph_app.knowledge.identifiers import checked_label, checked_rel_type
from graph_app.knowledge.states import SOURCE_LABEL

EXPORT_NODES = "MATCH (n) RETURN elementId(n) AS id, labels(n) AS labels, properties(n) AS props"
EXPORT_RELATIONSHIPS = (
    "MATCH (a)-[r]->(b) RETURN elementId(a) AS start, type(r) AS type, "
    "elementId(b) AS end, properties(r) AS props"
)
COUNTS = (
    "CALL { MATCH (n) RETURN count(n) AS nodes } "
    "CALL { MATCH ()-[r]->() RETURN count(r) AS relationships } "
    "RETURN nodes, relationships"
)
CREATE_NODES = (
    "UNWIND $rows AS row CREATE (n{labels}) SET n = row.props "
    "RETURN row.id AS id, elementId(n) AS element_id"
)
FIND_NODES = (
    "UNWIND $rows AS row MATCH (n:{label}) WHERE n[$key] = row.key "
    "RETURN row.id AS id, elementId(n) AS element_id"
)
CREATE_RELATIONSHIPS = (
    "UNWIND $rows AS row MATCH (a) WHERE elementId(a) = row.start "
    "MATCH (b) WHERE elementId(b) = row.end CREATE (a)-[r:{type}]->(b) SET r = row.props "
    "RETURN count(r) AS n"
)
MERGE_RELATIONSHIPS = (
    "UNWIND $rows AS row MATCH (a) WHERE elementId(a) = row.start "
    "MATCH (b) WHERE elementId(b) = row.end "
    "OPTIONAL MATCH (a)-[old:{type}]->(b) "
    "WHERE $type <> 'EVIDENCES' "
    "OR (old.rel_source = row.props.rel_source AND old.rel_type = row.props.rel_type) "
    "WITH a, b, row, count(old) AS present WHERE present = 0 "
    "CREATE (a)-[r:{type}]->(b) SET r = row.props RETURN count(r) AS n"
)

_TAG = "$neo4j"
_TEMPORAL: dict[str, Any] = {
    "DateTime": neo4j_time.DateTime,
    "Date": neo4j_time.Date,
    "Time": neo4j_time.Time,
    "Duration": neo4j_time.Duration,
}


@dataclass(frozen=True)
class ExportedNode:
    """A node: its element id (how relationships name it in the export), labels and raw
    properties (driver values)."""

    id: str
    labels: tuple[str, ...]
    props: dict[str, Any]

    @property
    def key(self) -> tuple[str, str, Any] | None:
        """(label, key property, value): how an import recognises it in a graph that has
        it already; None for a node of no label or without its key."""
        if len(self.labels) != 1:
            return None
        label = self.labels[0]
        field = "source_id" if label == SOURCE_LABEL else "name"
        value = self.props.get(field)
        return (label, field, value) if isinstance(value, str) else None


@dataclass(frozen=True)
class ExportedRelationship:
    start: str
    type: str
    end: str
    props: dict[str, Any]


@dataclass(frozen=True)
class GraphCounts:
    nodes: int
    relationships: int


def encode_value(value: Any) -> Any:
    """A property value as JSON-safe data, exactly: temporal values tagged with their
    type and ISO text (nanoseconds kept; a named zone kept by name), points and byte
    arrays tagged too."""
    for name, kind in _TEMPORAL.items():
        if isinstance(value, kind):
            encoded = {_TAG: name, "iso": value.iso_format()}
            zone = getattr(getattr(value, "tzinfo", None), "zone", None) or getattr(
                getattr(value, "tzinfo", None), "key", None
            )
            if isinstance(zone, str) and name in ("DateTime", "Time"):
                encoded["zone"] = zone
            return encoded
    if isinstance(value, Point):
        return {_TAG: "Point", "srid": value.srid, "coordinates": list(value)}
    if isinstance(value, bytes | bytearray):
        return {_TAG: "bytes", "base64": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, list | tuple):
        return [encode_value(v) for v in value]
    return value


def decode_value(value: Any) -> Any:
    """The inverse of :func:`encode_value`: driver values ready to be parameters."""
    if isinstance(value, list):
        return [decode_value(v) for v in value]
    if not isinstance(value, dict):
        return value
    kind = value.get(_TAG)
    if kind in _TEMPORAL:
        decoded = _TEMPORAL[kind].from_iso_format(value["iso"])
        if "zone" in value and kind == "DateTime":
            import pytz  # the driver's own dependency for named zones

            zone = pytz.timezone(value["zone"])
            decoded = decoded.astimezone(zone)
        return decoded
    if kind == "Point":
        from neo4j.spatial import CartesianPoint, WGS84Point

        cls = WGS84Point if value["srid"] in (4326, 4979) else CartesianPoint
        return cls(value["coordinates"])
    if kind == "bytes":
        return base64.b64decode(value["base64"])
    raise InvalidGraphValue("property", f"{value!r} is not a Neo4j property value")


def encode_props(props: Mapping[str, Any]) -> dict[str, Any]:
    return {str(k): encode_value(v) for k, v in props.items()}


def decode_props(props: Mapping[str, Any]) -> dict[str, Any]:
    return {str(k): decode_value(v) for k, v in props.items()}


class BackupMixin:
    _driver: Driver
    _database: str

    def _stream(self, text: str) -> Iterator[dict[str, Any]]:
        """Rows of one read query, fetched from the server as they are consumed."""
        with (
            driver_errors_classified(),
            self._driver.session(database=self._database, fetch_size=1000) as session,
        ):
            result = session.run(Query(cast(LiteralString, text)))
            for record in result:
                yield record.data()

    def _write(self, text: str, **params: Any) -> list[dict[str, Any]]:
        with driver_errors_classified():
            records, _, _ = self._driver.execute_query(
                Query(cast(LiteralString, text)), parameters_=params, database_=self._database
            )
        return [record.data() for record in records]

    def export_counts(self) -> GraphCounts:
        row = self._write(COUNTS)[0]
        return GraphCounts(int(row["nodes"]), int(row["relationships"]))

    def export_nodes(self) -> Iterator[ExportedNode]:
        for row in self._stream(EXPORT_NODES):
            yield ExportedNode(row["id"], tuple(sorted(row["labels"])), dict(row["props"]))

    def export_relationships(self) -> Iterator[ExportedRelationship]:
        for row in self._stream(EXPORT_RELATIONSHIPS):
            yield ExportedRelationship(row["start"], row["type"], row["end"], dict(row["props"]))

    def nodes_present(self, nodes: Sequence[ExportedNode]) -> dict[str, str]:
        """Export id -> element id of the nodes of ``nodes`` the graph holds already (same
        label and name, or same ``source_id``)."""
        by_key: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
        for node in nodes:
            key = node.key
            if key is not None:
                by_key[(key[0], key[1])].append({"id": node.id, "key": key[2]})
        found: dict[str, str] = {}
        for (label, field), rows in by_key.items():
            text = FIND_NODES.replace("{label}", checked_label(label))
            for row in self._write(text, rows=rows, key=field):
                found.setdefault(row["id"], row["element_id"])
        return found

    def create_nodes(self, nodes: Sequence[ExportedNode]) -> dict[str, str]:
        """Create these nodes as they were; returns export id -> new element id."""
        by_labels: dict[tuple[str, ...], list[dict[str, Any]]] = defaultdict(list)
        for node in nodes:
            labels = tuple(checked_label(label) for label in node.labels)
            by_labels[labels].append({"id": node.id, "props": node.props})
        created: dict[str, str] = {}
        for labels, rows in by_labels.items():
            text = CREATE_NODES.replace("{labels}", "".join(f":{label}" for label in labels))
            for row in self._write(text, rows=rows):
                created[row["id"]] = row["element_id"]
        return created

    def create_relationships(
        self, relationships: Sequence[ExportedRelationship], *, only_missing: bool
    ) -> int:
        """Create these relationships (``start`` and ``end`` already element ids of this
        graph); with ``only_missing``, only those the agent's merge key does not find."""
        by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for rel in relationships:
            by_type[checked_rel_type(rel.type)].append(
                {"start": rel.start, "end": rel.end, "props": rel.props}
            )
        created = 0
        for rel_type, rows in by_type.items():
            template = MERGE_RELATIONSHIPS if only_missing else CREATE_RELATIONSHIPS
            text = template.replace("{type}", rel_type)
            result = self._write(text, rows=rows, type=rel_type)
            created += sum(int(row["n"]) for row in result)
        return created
