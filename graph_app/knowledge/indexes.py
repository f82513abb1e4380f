"""The optional indexes of :class:`GraphStore`. The agent creates none and qqweb never
creates one by itself: only ``manage.py graph_indexes --create`` calls
:meth:`IndexesMixin.create_index`. Schema commands run in their own auto-commit
transactions."""

from __future__ import annotations

from typing import Any, LiteralString, cast

from neo4j import Driver

from graph_app.knowledge import cypher_writes as cw
from graph_app.knowledge.domain import SuggestedIndex
from graph_app.knowledge.errors import InvalidGraphValue, driver_errors_classified
from graph_app.knowledge.identifiers import checked_label


class IndexesMixin:
    _driver: Driver
    _database: str

    def _schema(self, text: str, **params: Any) -> list[dict[str, Any]]:
        with driver_errors_classified(), self._driver.session(database=self._database) as session:
            return [record.data() for record in session.run(cast(LiteralString, text), params)]

    def suggested_indexes(self) -> list[SuggestedIndex]:
        """The indexes that make our lookups fast: ``name`` on every entity label in use
        (the agent's identity) and ``source_id`` on ``:Source``; each says if it exists."""
        existing = {
            (tuple(r["labelsOrTypes"] or []), tuple(r["properties"] or []))
            for r in self._schema(cw.SHOW_INDEXES)
        }
        wanted = []
        for r in self._schema(cw.LABELS_IN_USE):
            prop = "source_id" if r["label"] == "Source" else "name"
            exists = ((r["label"],), (prop,)) in existing
            wanted.append(SuggestedIndex(label=r["label"], property=prop, exists=exists))
        return wanted

    def create_index(self, label: str, prop: str) -> None:
        checked_label(label)
        if prop == "source_id" and label == "Source":
            text = cw.CREATE_SOURCE_INDEX
        elif prop == "name":
            text = cw.CREATE_NAME_INDEX.format(name=f"qqweb_{label}_name", label=label)
        else:
            raise InvalidGraphValue("property", f"no index on {label}.{prop} is suggested")
        self._schema(text)

    def await_indexes(self, timeout_s: int = 300) -> None:
        """Wait until every index is online (a new index is populated in the background)."""
        self._schema(cw.AWAIT_INDEXES, timeout_s=int(timeout_s))
