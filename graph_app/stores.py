"""Wiring: the graph store built from settings and the process-wide Neo4j driver."""

from __future__ import annotations

from django.conf import settings

from graph_app.knowledge import GraphStore
from qqweb.lib.clients import neo4j_driver


def graph_store() -> GraphStore:
    return GraphStore(neo4j_driver(), database=settings.NEO4J_DATABASE)
