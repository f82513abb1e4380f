"""GraphStore: the agent's knowledge graph in Neo4j, read and written with parameters only.

The driver is passed in (one per process, see ``graph_app.stores``); the store never
builds one and does no I/O in ``__init__``. Driver errors are classified once
(:mod:`.errors`): an outage is :class:`GraphUnavailable`, anything else a
:class:`GraphStoreError`, both ``from`` the original.
"""

from __future__ import annotations

import time
from typing import Any, LiteralString, cast

from neo4j import Driver, Query

from . import cypher
from .curation import CurationMixin
from .errors import InvalidIdentifier, driver_errors_classified
from .identifiers import checked_label, checked_rel_type
from .values import plain


class GraphStore(CurationMixin):
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
        rows = self._run(cypher.ENTITIES_MENTIONED_IN, text=text, limit=int(limit))
        for row in rows:
            row["rels"] = [r for r in row["rels"] if r.get("type")]
        return rows

    # --- browsing ---------------------------------------------------------------------------

    def list_entities(
        self,
        *,
        label: str | None = None,
        q: str | None = None,
        sort: str = "mentions",
        after: tuple[Any, str] | None = None,
        limit: int = 50,
    ) -> list[dict[str, Any]]:
        """One keyset page (``limit`` rows) in ``(sort key, element id)`` descending order
        after ``after``. ``label`` is compared as a parameter; ``sort`` picks a constant."""
        if sort not in cypher.ENTITY_SORT_KEYS:
            raise InvalidIdentifier("sort", sort)
        if label is not None:
            checked_label(label)
        text = cypher.LIST_ENTITIES.format(key=cypher.ENTITY_SORT_KEYS[sort])
        return self._run(
            text,
            label=label,
            q=q.lower() if q else None,
            after_key=after[0] if after else None,
            after_id=after[1] if after else None,
            limit=int(limit),
        )

    def get_entities(self, label: str, name: str) -> list[dict[str, Any]]:
        return self._run(cypher.GET_ENTITY, label=checked_label(label), name=name)

    def relationships_of(self, element_id: str, limit: int = 500) -> list[dict[str, Any]]:
        return self._run(cypher.ENTITY_RELATIONSHIPS, id=element_id, limit=int(limit))

    def provenance_of(self, element_id: str, limit: int = 200) -> list[dict[str, Any]]:
        return self._run(cypher.ENTITY_PROVENANCE, id=element_id, limit=int(limit))

    def entity_embeddings(self) -> list[dict[str, Any]]:
        return self._run(cypher.ENTITY_EMBEDDINGS)

    def orphans(self, limit: int = 100) -> list[dict[str, Any]]:
        return self._run(cypher.ORPHANS, limit=int(limit))

    def entities_to_embed(self, dimension: int, limit: int = 10_000) -> list[dict[str, Any]]:
        return self._run(cypher.ENTITIES_TO_EMBED, dim=int(dimension), limit=int(limit))

    def set_embeddings(self, rows: list[dict[str, Any]]) -> int:
        """``rows``: ``[{id, embedding}]`` by element id."""
        return int(self._run(cypher.SET_EMBEDDINGS, rows=rows)[0]["n"])

    # --- neighbourhoods ----------------------------------------------------------------------

    def neighbours(
        self, ids: list[str], exclude: list[str], *, skip: int = 0, limit: int = 50
    ) -> list[dict[str, Any]]:
        return self._run(
            cypher.NEIGHBOURS, ids=ids, exclude=exclude, skip=int(skip), limit=int(limit)
        )

    def count_neighbours(self, ids: list[str], exclude: list[str]) -> int:
        return int(self._run(cypher.COUNT_NEIGHBOURS, ids=ids, exclude=exclude)[0]["n"])

    def degrees(self, ids: list[str]) -> dict[str, int]:
        return {r["id"]: int(r["degree"]) for r in self._run(cypher.DEGREES, ids=ids)}

    def edges_among(self, ids: list[str], limit: int = 2000) -> list[dict[str, Any]]:
        return self._run(cypher.EDGES_AMONG, ids=ids, limit=int(limit))

    def sources_of(self, element_id: str, limit: int = 20) -> list[dict[str, Any]]:
        return self._run(cypher.SOURCES_OF, id=element_id, limit=int(limit))

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
