"""Nothing left half-done after a crash, in the graph and in a backup's import (the notes'
actions: test_crash_recovery.py, whose docstring says how)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings

from graph_app.services.merge import entity_merge
from graph_app.stores import graph_store
from memory_app.notes.lib import CoreNotesManager
from memory_app.notes.stores import notes_store
from qqweb.audit.models import AuditEvent
from qqweb.audit.services import audit_undo
from qqweb.backup.exporting import backup_export
from qqweb.backup.services import backup_run, import_create
from qqweb.jobs.models import Run
from tests.graph_app.conftest import graph_dump, run_cypher
from tests.helpers import agent_archive_line, plant_note
from tests.qqweb.crash_steps import (
    ADMIN,
    crash_at_every_step,
    events,
    fresh_memory,
    reap,
)

pytestmark = pytest.mark.django_db(transaction=True)


# --- merge two graph entities -------------------------------------------------------------------


ENTITIES = """
CREATE (ada:Person {name: 'Ada', mention_count: 4,
        first_seen: datetime('2024-01-01T00:00:00.000000001Z')})
CREATE (dup:Person {name: 'Ada L', mention_count: 2, aliases: ['Ada Lovelace']})
CREATE (p:Project {name: 'qqweb'})
CREATE (k:Software {name: 'Neo4j'})
CREATE (s:Source {source_id: 'session:7'})
CREATE (ada)-[:WORKS_ON {mention_count: 1}]->(p)
CREATE (dup)-[:WORKS_ON {mention_count: 2}]->(p)
CREATE (dup)-[:USES {evidence: 'said so'}]->(k)
CREATE (dup)-[:EXTRACTED_FROM]->(s)
CREATE (s)-[:EVIDENCES {rel_type: 'USES', rel_source: 'session:7'}]->(dup)
"""


def relationships_doubled() -> list[dict[str, Any]]:
    return run_cypher(
        """MATCH (a)-[r]->(b) WITH a, type(r) AS t, b, count(r) AS n WHERE n > 1
        RETURN coalesce(a.name, a.source_id) AS a, t, coalesce(b.name, b.source_id) AS b, n"""
    )


def test_a_graph_merge_killed_at_any_step_is_all_or_nothing_and_undone_whole(
    crash_server, child_stores
):
    original: list[str] = []

    def plant() -> dict[str, Any]:
        fresh_memory()
        graph_store().delete_everything()
        run_cypher(ENTITIES)
        original[:] = graph_dump()
        return {"source": ["Person", "Ada L"], "target": ["Person", "Ada"]}

    def recover(crashed_after: int, steps: list[str]) -> None:
        where = f"graph merge killed after write {crashed_after} of {steps}"
        if graph_store().get_entities("Person", "Ada L"):  # not merged: the curator retries
            entity_merge(actor=ADMIN, source=("Person", "Ada L"), target=("Person", "Ada"))
        reap()
        assert not graph_store().get_entities("Person", "Ada L"), where
        assert relationships_doubled() == [], where
        ada = run_cypher(
            "MATCH (:Person {name: 'Ada'})-[r]-(o) RETURN type(r) AS t, "
            "coalesce(o.name, o.source_id) AS o ORDER BY t, o"
        )
        assert [(r["t"], r["o"]) for r in ada] == [
            ("EVIDENCES", "session:7"),
            ("EXTRACTED_FROM", "session:7"),
            ("USES", "Neo4j"),
            ("WORKS_ON", "qqweb"),
        ], where
        (done,) = events("entity.merge", AuditEvent.DONE)  # by the retry, or the reaper
        audit_undo(actor=ADMIN, event_id=done.pk)
        assert graph_dump() == original, where

    steps = crash_at_every_step(crash_server, "graph_merge", child_stores, plant, recover)
    assert steps == ["AuditEvent.save", "GraphStore.apply_merge", "AuditEvent.save"]


# --- import a backup ----------------------------------------------------------------------------


def memory_snapshot() -> dict[str, Any]:
    memory = Path(django_settings.MEMORY_DIR)
    return {
        "notes": sorted(repr(d) for d in notes_store().export_documents()),
        "files": {p.name: p.read_bytes() for p in memory.iterdir() if p.suffix != ".lock"},
        "graph": graph_dump(),
    }


def empty_memory() -> None:
    fresh_memory()
    graph_store().delete_everything()
    Run.objects.all().delete()
    for path in Path(django_settings.MEMORY_DIR).iterdir():
        path.unlink()


def test_an_import_killed_at_any_step_is_finished_by_importing_again_with_nothing_doubled(
    crash_server, child_stores, settings
):
    for i in range(3):
        plant_note(f"note_00000000010{i}")
    run_cypher(ENTITIES)
    CoreNotesManager(memory_dir=settings.MEMORY_DIR).add_core("I am qq", "Identity")
    lines = [agent_archive_line(f"note_00000000011{i}", 10) for i in range(2)]
    archive = Path(settings.MEMORY_DIR) / "archive.jsonl"
    archive.write_text("".join(json.dumps(line) + "\n" for line in lines))
    original = memory_snapshot()
    settings.QQ_BACKUP_DIR.mkdir(parents=True, exist_ok=True)
    backup_export(destination=settings.QQ_BACKUP_DIR / "export-crash-test.ndjson")

    def plant() -> dict[str, Any]:
        empty_memory()
        run = import_create(actor=ADMIN, file="export-crash-test.ndjson")
        return {"run_id": run.pk}

    def recover(crashed_after: int, steps: list[str]) -> None:
        where = f"import killed after write {crashed_after} of {steps}"
        reap()
        assert not Run.objects.filter(status=Run.RUNNING).exists()
        if not Run.objects.filter(kind="import", status=Run.DONE):
            again = import_create(
                actor=ADMIN, file="export-crash-test.ndjson", accept_conflicts=True
            )
            backup_run(run=again)  # the admin imports it again, accepting what is there
        assert memory_snapshot() == original, where
        assert relationships_doubled() == [], where

    steps = crash_at_every_step(crash_server, "import", child_stores, plant, recover)
    assert steps == [
        "Run.save",  # what it found before its first write (ImportStart), for a retry
        "MongoNotesStore.insert_exported",
        "Run.save",  # progress
        "MemoryFiles.import_file",  # archive.jsonl
        "MemoryFiles.import_file",  # core.md
        *["GraphStore._write"] * 4,  # nodes, by labels
        "Run.save",
        *["GraphStore._write"] * 4,  # relationships, by type
        "Run.save",
        "Run.save",
        "Run.save",  # done
    ]
