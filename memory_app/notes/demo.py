"""Load the demo memory into the configured stores (``manage.py seed_demo``).

Each store is seeded only when it is empty (or after ``reset``), so a second run of
``make dev`` keeps whatever is there. Notes get real embeddings from the configured
embedder (``make dev`` passes one answering from the committed vectors,
``memory_app.notes.demo_vectors``), except the few planted with an empty one. ``parts`` picks
what is seeded: ``make dev`` seeds the memory before the web server starts and the graph
once Neo4j answers.
"""

from __future__ import annotations

import time
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import datetime

from graph_app.demo_data import build_demo_graph, write_demo_graph
from graph_app.knowledge import GraphUnavailable
from graph_app.stores import graph_store
from memory_app.notes.demo_data import build_demo_memory
from memory_app.notes.lib.embeddings import Embedder
from memory_app.notes.lib.mongo_store import utcnow_naive
from memory_app.notes.stores import archive_manager, core_notes, notes_store, working_notes


@dataclass
class DemoSeedReport:
    notes: int = 0
    archive_lines: int = 0
    core_items: int = 0
    working_items: int = 0
    graph: dict[str, int] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)


PARTS = ("memory", "graph")  # memory: notes, archive.jsonl, core.md, notes.md


def demo_seed(
    *,
    embedder: Embedder,
    reset: bool = False,
    now: datetime | None = None,
    seed: int = 7,
    parts: Collection[str] = PARTS,
    graph_wait_s: float = 0.0,
) -> DemoSeedReport:
    """``graph_wait_s``: how long to wait for Neo4j to answer (``make dev`` starts this
    while Neo4j starts, so Django's start overlaps the JVM's)."""
    now = now or utcnow_naive()
    report = DemoSeedReport()
    if "memory" in parts:
        _seed_memory(report, embedder=embedder, reset=reset, now=now, seed=seed)
    if "graph" in parts:
        _seed_graph(report, embedder=embedder, reset=reset, now=now, wait_s=graph_wait_s)
    return report


def _seed_memory(
    report: DemoSeedReport, *, embedder: Embedder, reset: bool, now: datetime, seed: int
) -> None:
    demo = build_demo_memory(now=now, seed=seed)

    store = notes_store()
    store.ensure_indexes()
    if reset:
        store.clear_all()
    if store.count() == 0:
        to_embed = [doc for doc in demo.notes if doc["embedding"] is None]
        vectors = embedder.embed([doc["content"] for doc in to_embed])
        for doc, vector in zip(to_embed, vectors, strict=True):
            doc["embedding"] = [float(x) for x in vector]
        report.notes = store.insert_agent_documents(demo.notes)
    else:
        report.skipped.append("notes")

    archive = archive_manager()
    archive.memory_dir.mkdir(parents=True, exist_ok=True)
    if reset and archive.archive_file.exists():
        archive.archive_file.unlink()
    if not archive.read_lines():
        report.archive_lines = archive.append_entries(demo.archive)
    else:
        report.skipped.append("archive")

    core, working = core_notes(), working_notes()
    if reset:
        for manager in (core, working):
            manager.path.unlink(missing_ok=True)
    core.ensure_exists()
    working.ensure_exists()
    if not any(core.get_all_items().values()):
        for category, items in demo.core.items():
            report.core_items += sum(core.add_core(item, category) for item in reversed(items))
    else:
        report.skipped.append("core.md")
    if not any(working.get_all_items().values()):
        for section, items in demo.working.items():
            report.working_items += sum(working.add_note(section, i) for i in reversed(items))
    else:
        report.skipped.append("notes.md")


def _seed_graph(
    report: DemoSeedReport, *, embedder: Embedder, reset: bool, now: datetime, wait_s: float
) -> None:
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
            report.graph = write_demo_graph(graph, build_demo_graph(now=now), embedder.embed)
        else:
            report.skipped.append("graph")
    except GraphUnavailable as e:
        report.skipped.append(f"graph ({e.message})")
