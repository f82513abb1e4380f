"""The demo of every app, composed (``manage.py seed_demo``): the notes' memory
(``memory_app.notes.demo``) and the knowledge graph (``graph_app.demo``), embedded with
one embedder. The composition root holds it because it seeds both apps; neither app
seeds the other.

``parts`` picks what is seeded: ``make dev`` seeds the memory before the web server
starts and the graph once Neo4j answers. Run as a module, it rewrites the committed demo
vectors (``qqweb.lib.demo_vectors``) from every text the default demo embeds::

    .venv/bin/python -m qqweb.demo
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import datetime

from graph_app.demo import graph_demo_seed
from memory_app.notes.demo import notes_demo_seed
from memory_app.notes.lib.mongo_store import utcnow_naive
from qqweb.lib.embeddings import Embedder


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
        notes = notes_demo_seed(embedder=embedder, reset=reset, now=now, seed=seed)
        report.notes, report.archive_lines = notes.notes, notes.archive_lines
        report.core_items, report.working_items = notes.core_items, notes.working_items
        report.skipped.extend(notes.skipped)
    if "graph" in parts:
        graph = graph_demo_seed(embed=embedder.embed, reset=reset, now=now, wait_s=graph_wait_s)
        report.graph = graph.written
        report.skipped.extend(graph.skipped)
    return report


def demo_texts(*, now: datetime) -> list[list[str]]:
    """Every text the default demo (``seed_demo``, ``seed_facts_demo``) embeds, in the
    batches it embeds them: the notes, the graph entities' "name: description", the
    facts. None depends on ``now``."""
    from graph_app.demo_data import build_demo_graph, entity_texts
    from memory_app.facts.demo import facts_demo_plan
    from memory_app.notes.demo_data import build_demo_memory

    notes = [d["content"] for d in build_demo_memory(now=now).notes if d["embedding"] is None]
    graph = entity_texts(build_demo_graph(now=now))
    facts = [d["_text"] for d in facts_demo_plan(now=now) if "_text" in d]
    return [notes, graph, facts]


def main() -> None:  # pragma: no cover - a maintainer's command
    from qqweb.lib.demo_vectors import MODEL, VECTORS_FILE, write_vectors
    from qqweb.lib.embeddings import SentenceTransformerEmbedder

    model = SentenceTransformerEmbedder(MODEL)
    written = write_vectors(model, demo_texts(now=utcnow_naive()))
    print(f"{VECTORS_FILE}: {written} vectors of {MODEL} ({model.engine} engine)")


if __name__ == "__main__":
    main()
