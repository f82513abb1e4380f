"""Load the demo memory into the configured stores: the notes, archive.jsonl, core.md and
notes.md (``manage.py seed_demo``, which the composition root runs, ``qqweb.demo``, seeds
the graph beside it).

Each store is seeded only when it is empty (or after ``reset``), so a second run of
``make dev`` keeps whatever is there. Notes get real embeddings from the given
embedder (``make dev`` passes one answering from the committed vectors,
``qqweb.lib.demo_vectors``), except the few planted with an empty one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from memory_app.notes.demo_data import build_demo_memory
from memory_app.notes.lib.mongo_store import utcnow_naive
from memory_app.notes.stores import archive_manager, core_notes, notes_store, working_notes
from qqweb.lib.embeddings import Embedder


@dataclass
class NotesDemoReport:
    notes: int = 0
    archive_lines: int = 0
    core_items: int = 0
    working_items: int = 0
    skipped: list[str] = field(default_factory=list)


def notes_demo_seed(
    *, embedder: Embedder, reset: bool = False, now: datetime | None = None, seed: int = 7
) -> NotesDemoReport:
    """Seed the notes and the memory files, each only when it is empty (or after ``reset``)."""
    report = NotesDemoReport()
    _seed_memory(report, embedder=embedder, reset=reset, now=now or utcnow_naive(), seed=seed)
    return report


def _seed_memory(
    report: NotesDemoReport, *, embedder: Embedder, reset: bool, now: datetime, seed: int
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
