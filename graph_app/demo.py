"""Load the demo knowledge graph into the configured Neo4j (``manage.py seed_demo``, which
the composition root runs, ``qqweb.demo``, seeds the notes beside it). The graph is
seeded only when it has no entity (or after ``reset``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graph_app.demo_data import build_demo_graph, write_demo_graph
from graph_app.knowledge import GraphUnavailable
from graph_app.stores import graph_store


@dataclass
class GraphDemoReport:
    written: dict[str, int] = field(default_factory=dict)  # what was written, by kind
    skipped: list[str] = field(default_factory=list)


def graph_demo_seed(
    *, embed: Callable[[list[str]], Any], reset: bool, now: datetime, wait_s: float = 0.0
) -> GraphDemoReport:
    """``embed`` turns the entities' ``"name: description"`` texts into vectors;
    ``wait_s``: how long to wait for Neo4j to answer (``make dev`` seeds while Neo4j
    starts). A graph that does not answer is reported as skipped, with why."""
    report = GraphDemoReport()
    try:
        graph = graph_store()
        deadline = time.monotonic() + wait_s
        while True:
            try:
                graph.ping()
                break
            except GraphUnavailable:
                if time.monotonic() >= deadline:
                    raise
                time.sleep(1)
        if reset:
            graph.delete_everything()
        if graph.count_entities() == 0:
            report.written = write_demo_graph(graph, build_demo_graph(now=now), embed)
        else:
            report.skipped.append("graph")
        graph.warm_up()  # the first entity page after a restart: no seconds of planning
    except GraphUnavailable as e:
        report.skipped.append(f"graph ({e.message})")
    return report
