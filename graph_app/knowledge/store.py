"""GraphStore: the agent's knowledge graph in Neo4j, read and written with parameters only.

The driver is passed in (one per process, see ``graph_app.stores``); the store never
builds one and does no I/O in ``__init__``. Driver errors are classified once
(:mod:`.errors`): an outage is :class:`GraphUnavailable`, anything else a
:class:`GraphStoreError`, both ``from`` the original.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any, LiteralString, cast

from neo4j import Driver, Query

from graph_app.knowledge import cypher
from graph_app.knowledge.backup import BackupMixin
from graph_app.knowledge.curation import CurationMixin
from graph_app.knowledge.domain import (
    Entity,
    EntityEmbedding,
    EntityPage,
    EntitySummary,
    GraphEdge,
    OrphanEntity,
    ProvenanceLink,
    Relationship,
    RelationshipPage,
    TypedRelationship,
)
from graph_app.knowledge.errors import (
    EntityNotFound,
    InvalidIdentifier,
    driver_errors_classified,
)
from graph_app.knowledge.identifiers import checked_label, checked_rel_type
from graph_app.knowledge.indexes import IndexesMixin
from graph_app.knowledge.values import plain


class GraphStore(BackupMixin, CurationMixin, IndexesMixin):
    def __init__(self, driver: Driver, database: str = "neo4j", timeout_s: float = 30.0) -> None:
        self._driver = driver
        self._database = database
        self._timeout_s = timeout_s

    def _run(self, cypher_text: str, /, **params: Any) -> list[dict[str, Any]]:
        query = Query(cast(LiteralString, cypher_text), timeout=self._timeout_s)
        with driver_errors_classified():
            records, _, _ = self._driver.execute_query(
                query, parameters_=params, database_=self._database
            )
        return [plain(record.data()) for record in records]

    def ping(self) -> float:
        started = time.perf_counter()
        self._run(cypher.PING)
        return (time.perf_counter() - started) * 1000

    def warm_up(self) -> None:
        """Run the graph pages' reads once, matching nothing. Neo4j plans a statement the
        first time it sees it and keeps the plan; on a JVM just started each plan took
        seconds, so the first entity page after a restart took up to 20 s. ``make dev``
        (``seed_demo --only graph``) and the tests' Neo4j call this once it answers."""
        nothing = "\u0000qqweb warm-up"
        self.get_entities("QqwebWarmUp", nothing)
        self.relationships_of(nothing)
        self.provenance_of(nothing)
        self.list_entities(q=nothing, limit=1)
        self.list_entities(label="QqwebWarmUp", limit=1)
        self.count_by_label()
        self.count_by_relationship_type()
        self.count_entities()
        self.count_sources()
        self.count_orphans()
        self.name_for_alias("QqwebWarmUp", nothing)
        with contextlib.suppress(EntityNotFound):
            self.entity_state("QqwebWarmUp", nothing)

    # --- counts ---------------------------------------------------------------------------

    def count_by_label(self) -> dict[str, int]:
        return {row["label"]: int(row["n"]) for row in self._run(cypher.COUNT_BY_LABEL)}

    def count_by_relationship_type(self) -> dict[str, int]:
        return {row["type"]: int(row["n"]) for row in self._run(cypher.COUNT_BY_REL_TYPE)}

    def count_entities(self) -> int:
        return int(self._run(cypher.COUNT_ENTITIES)[0]["n"])

    def count_sources(self) -> int:
        return int(self._run(cypher.COUNT_SOURCES)[0]["n"])

    def count_orphans(self) -> int:
        return int(self._run(cypher.COUNT_ORPHANS)[0]["n"])

    def entities_mentioned_in(self, text: str, limit: int = 10) -> list[dict[str, Any]]:
        """Entities whose name or an alias the text contains, each with a few of its
        relationships. Rows (label, name, description, rels), not typed: the retrieval
        preview of ``memory_app`` reads them by key and answers them as JSON."""
        rows = self._run(cypher.ENTITIES_MENTIONED_IN, text=text, limit=int(limit))
        for row in rows:
            row["rels"] = [r for r in row["rels"] if r.get("type")]
        return rows

    # --- browsing ---------------------------------------------------------------------------

    def name_for_alias(self, label: str, alias: str) -> str | None:
        """The name of the ``label`` entity that keeps ``alias`` as an alias (a rename
        keeps the old name there), or None."""
        checked_label(label)
        rows = self._run(cypher.ENTITY_NAME_FOR_ALIAS, label=label, alias=alias)
        return str(rows[0]["name"]) if rows else None

    def list_entities(
        self,
        *,
        label: str | None = None,
        q: str | None = None,
        sort: str = "mentions",
        after: tuple[Any, str] | None = None,
        limit: int = 50,
    ) -> EntityPage:
        """One keyset page (``limit`` entities) in ``(sort key, element id)`` descending
        order after ``after``; its ``next_after`` continues it. ``label`` is compared as a
        parameter; ``sort`` picks a constant."""
        if sort not in cypher.ENTITY_SORT_KEYS:
            raise InvalidIdentifier("sort", sort)
        if label is not None:
            checked_label(label)
        text = cypher.LIST_ENTITIES.format(key=cypher.ENTITY_SORT_KEYS[sort])
        limit = int(limit)
        rows = self._run(
            text,
            label=label,
            q=q.lower() if q else None,
            after_key=after[0] if after else None,
            after_id=after[1] if after else None,
            limit=limit + 1,
        )
        more, rows = len(rows) > limit, rows[:limit]
        last = (rows[-1]["key"], str(rows[-1]["id"])) if more and rows else None
        return EntityPage([_entity(row) for row in rows], last)

    def list_relationships(
        self, *, rel_type: str | None = None, after: str | None = None, limit: int = 100
    ) -> RelationshipPage:
        """One keyset page of the relationships between entities (provenance apart), of
        ``rel_type`` (checked) or of every type, by element id after ``after``."""
        pattern = f":{checked_rel_type(rel_type)}" if rel_type else ""
        limit = int(limit)
        rows = self._run(
            cypher.LIST_RELATIONSHIPS.format(rel_type=pattern), after=after, limit=limit + 1
        )
        more, rows = len(rows) > limit, rows[:limit]
        items = [
            TypedRelationship(
                id=str(r["id"]),
                type=str(r["type"]),
                start_label=str(r["start_label"] or ""),
                start_name=r["start_name"] if isinstance(r["start_name"], str) else None,
                end_label=str(r["end_label"] or ""),
                end_name=r["end_name"] if isinstance(r["end_name"], str) else None,
            )
            for r in rows
        ]
        return RelationshipPage(items, items[-1].id if more and items else None)

    def get_entities(self, label: str, name: str) -> list[Entity]:
        """The entities with this label and name (the agent's identity: normally one)."""
        rows = self._run(cypher.GET_ENTITY, label=checked_label(label), name=name)
        return [_entity(row) for row in rows]

    def relationships_of(self, element_id: str, limit: int = 500) -> list[Relationship]:
        """The entity's relationships to other entities, both ways (provenance apart)."""
        rows = self._run(cypher.ENTITY_RELATIONSHIPS, id=element_id, limit=int(limit))
        return [
            Relationship(
                id=r["id"],
                type=r["type"],
                outgoing=bool(r["outgoing"]),
                other_label=r["other_label"] or "",
                other_name=r["other_name"],
                props={k: v for k, v in r["props"].items() if k != "embedding"},
            )
            for r in rows
        ]

    def provenance_of(self, element_id: str, limit: int = 200) -> list[ProvenanceLink]:
        """The ``:Source`` nodes the entity was extracted from, by ``source_id``."""
        return [
            _provenance(row)
            for row in self._run(cypher.ENTITY_PROVENANCE, id=element_id, limit=int(limit))
        ]

    def entity_embeddings(self) -> list[EntityEmbedding]:
        return [
            EntityEmbedding(
                id=r["id"],
                label=r["label"] or "",
                name=r["name"],
                description=r["description"] if isinstance(r["description"], str) else None,
                mentions=int(r["mentions"] or 0),
                vector=r["embedding"],
            )
            for r in self._run(cypher.ENTITY_EMBEDDINGS)
        ]

    def orphan_entities(self, limit: int = 100) -> list[OrphanEntity]:
        """Entities with no relationship to another entity (provenance does not count)."""
        return [
            OrphanEntity(id=r["id"], label=r["label"] or "", name=r["name"])
            for r in self._run(cypher.ORPHANS, limit=int(limit))
        ]

    def orphans(self, limit: int = 100) -> list[dict[str, Any]]:
        """:meth:`orphan_entities` as rows (id, label, name): ``memory_app``'s orphan
        scan job reads them by key."""
        return [vars(orphan) for orphan in self.orphan_entities(limit)]

    def entities_to_embed(self, dimension: int, limit: int = 10_000) -> list[dict[str, Any]]:
        """Entities whose embedding is missing or of another dimension, as rows (id, label,
        name, description, embedding): ``memory_app``'s re-embedding job reads them by key
        and keeps the old vectors in its audit event."""
        return self._run(cypher.ENTITIES_TO_EMBED, dim=int(dimension), limit=int(limit))

    def set_embeddings(self, rows: list[dict[str, Any]]) -> int:
        """``rows``: ``[{id, embedding}]`` by element id."""
        return int(self._run(cypher.SET_EMBEDDINGS, rows=rows)[0]["n"])

    # --- neighbourhoods ----------------------------------------------------------------------

    def neighbours(
        self, ids: list[str], exclude: list[str], *, skip: int = 0, limit: int = 50
    ) -> list[EntitySummary]:
        """The entity neighbours of ``ids``, most mentioned first, leaving out ``exclude``."""
        rows = self._run(
            cypher.NEIGHBOURS, ids=ids, exclude=exclude, skip=int(skip), limit=int(limit)
        )
        return [_summary(row) for row in rows]

    def count_neighbours(self, ids: list[str], exclude: list[str]) -> int:
        return int(self._run(cypher.COUNT_NEIGHBOURS, ids=ids, exclude=exclude)[0]["n"])

    def degrees(self, ids: list[str]) -> dict[str, int]:
        return {r["id"]: int(r["degree"]) for r in self._run(cypher.DEGREES, ids=ids)}

    def edges_among(self, ids: list[str], limit: int = 2000) -> list[GraphEdge]:
        """The relationships among ``ids`` (at most ``limit``): a neighbourhood's edges."""
        return [
            GraphEdge(id=r["id"], source=r["source"], target=r["target"], type=r["type"])
            for r in self._run(cypher.EDGES_AMONG, ids=ids, limit=int(limit))
        ]

    def sources_of(self, element_id: str, limit: int = 20) -> list[ProvenanceLink]:
        """The ``:Source`` nodes of one entity, by element id (for the neighbourhood)."""
        rows = self._run(cypher.SOURCES_OF, id=element_id, limit=int(limit))
        return [_provenance(row) for row in rows]

    # --- writes in the agent's shape (demo data, imports) -------------------------------

    def merge_entities(self, label: str, rows: list[dict[str, Any]]) -> int:
        """MERGE entities of one label on ``name``; ``rows``: ``[{name, props}]``. Properties
        are set on creation only, so re-running changes nothing."""
        text = cypher.MERGE_ENTITIES.format(label=checked_label(label))
        rows = [{"name": r["name"], "props": {**r["props"], "name": r["name"]}} for r in rows]
        return int(self._run(text, rows=rows)[0]["n"])

    def merge_relationships(
        self, label_a: str, rel_type: str, label_b: str, rows: list[dict[str, Any]]
    ) -> int:
        """MERGE ``(a)-[:rel_type]->(b)`` for ``rows``: ``[{a, b, props}]`` (names)."""
        text = cypher.MERGE_RELATIONSHIPS.format(
            label_a=checked_label(label_a),
            label_b=checked_label(label_b),
            rel_type=checked_rel_type(rel_type),
        )
        return int(self._run(text, rows=rows)[0]["n"])

    def link_source(
        self,
        entity: tuple[str, str],
        source_id: str,
        props: dict[str, Any],
        rel_type: str = "",
        rel_source: str = "",
    ) -> None:
        text = cypher.MERGE_SOURCE_PROVENANCE.format(label=checked_label(entity[0]))
        self._run(
            text,
            source_id=source_id,
            props=props,
            name=entity[1],
            rel_type=rel_type,
            rel_source=rel_source,
        )

    def delete_everything(self) -> None:
        """Empty the graph (tests and ``seed_demo --reset`` only)."""
        self._run(cypher.DELETE_ALL)


def _entity(row: dict[str, Any]) -> Entity:
    return Entity.from_properties(
        str(row["id"]), row["labels"], dict(row["props"]), row["embedding_dimension"]
    )


def _summary(row: dict[str, Any]) -> EntitySummary:
    return EntitySummary(
        id=str(row["id"]),
        label=row["label"] or "",
        name=row["name"],
        mentions=int(row["mentions"] or 0),
    )


def _provenance(row: dict[str, Any]) -> ProvenanceLink:
    return ProvenanceLink(id=str(row["id"]), source_id=row["source_id"], props=row["props"])
