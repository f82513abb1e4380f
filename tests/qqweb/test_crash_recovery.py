"""Nothing left half-done after a crash.

Each action (archive a note, restore it, merge or supersede a review pair, purge the
archive, merge two graph entities, import a backup) runs in a child process that is
killed (``os._exit(137)``, as ``kill -9``) right after its first write at the store
boundary, then on fresh data right after its second, and so on until it finishes without
being killed (tests/crashing.py). After each crash the test does what a user or an
operator would: the same action again where it is still offered, and the reaper. Then
every note is in the collection or in ``archive.jsonl``, exactly once; no archive line,
note, graph node or relationship is doubled; no audit event is left pending; and the
action ends done once (by the retry, or by the reaper, which finds the change of a process
that died after it and before its event said so) and its undo puts the original back.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.utils import timezone

from graph_app.services.merge import entity_merge
from graph_app.stores import graph_store
from memory_app.notes.lib import CoreNotesManager, NoteNotFound
from memory_app.notes.models import ReviewPair
from memory_app.notes.services.archive import archive_purge
from memory_app.notes.services.notes import note_archive, note_restore
from memory_app.notes.services.review import review_verdict
from memory_app.notes.stores import notes_store
from qqweb.audit.models import AuditEvent
from qqweb.audit.services import audit_undo
from qqweb.backup.exporting import backup_export
from qqweb.backup.services import backup_run, import_create
from qqweb.jobs.models import Run
from qqweb.jobs.runs import runs_reap
from qqweb.lib.actors import Actor
from tests.crashing import CRASH_EXIT, CrashServer
from tests.graph_app.conftest import graph_dump, run_cypher
from tests.helpers import agent_archive_line, plant_note

ADMIN = Actor("user", "ada-admin", None, "admin")
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def crash_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CrashServer]:
    test_db = django_settings.DATABASES["default"]["TEST"]["NAME"]
    env = {
        "DJANGO_SETTINGS_MODULE": "qqweb.settings",
        "DATABASE_URL": f"sqlite:///{test_db}",
        "QQ_EMBEDDING_BACKEND": "hashing",
        "QQ_EMBEDDING_DIMENSION": "384",
        "QQ_EMBEDDER_WARM_UP": "0",
    }
    server = CrashServer(env, tmp_path_factory.mktemp("crash"))
    yield server
    server.close()


@pytest.fixture
def child_stores(stores: dict[str, Any], settings: Any, tmp_path: Path) -> dict[str, Any]:
    """The settings a child needs to reach this test's stores (its own vector directory)."""
    return {
        "MONGODB_URI": settings.MONGODB_URI,
        "QQ_MONGO_DB": settings.QQ_MONGO_DB,
        "NEO4J_URI": settings.NEO4J_URI,
        "MEMORY_DIR": str(settings.MEMORY_DIR),
        "QQ_VECTOR_DIR": str(tmp_path / "child-vectors"),
        "QQ_BACKUP_DIR": str(settings.QQ_BACKUP_DIR),
    }


def crash_at_every_step(
    server: CrashServer,
    action: str,
    stores: dict[str, Any],
    plant: Callable[[], dict[str, Any]],
    recover: Callable[[int, list[str]], None],
) -> list[str]:
    """Plant, run ``action`` killed after write 1, recover and check; again killed after
    write 2, ...; and once more when it finishes. Returns the writes of the whole action."""
    crash_after = 1
    while True:
        args = plant()
        rc, steps = server.run(action, args, stores, crash_after)
        assert rc == CRASH_EXIT or len(steps) < crash_after, (rc, steps)
        recover(crash_after if rc == CRASH_EXIT else 0, steps)
        if rc == 0:
            return steps
        crash_after += 1


def reap() -> None:
    """The reaper, as beat runs it, at a time when whatever the child left is old."""
    runs_reap(now=timezone.now() + timedelta(days=1))
    assert not AuditEvent.objects.filter(status=AuditEvent.PENDING).exists()


def fresh_memory() -> None:
    notes_store().collection.delete_many({})
    archive = Path(django_settings.MEMORY_DIR) / "archive.jsonl"
    archive.unlink(missing_ok=True)
    AuditEvent.objects.all().delete()
    ReviewPair.objects.all().delete()


def archive_lines() -> list[dict[str, Any]]:
    path = Path(django_settings.MEMORY_DIR) / "archive.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def memory_state() -> dict[str, Any]:
    """Where every note is: its text in the collection, its unrestored archive lines."""
    notes = {d["note_id"]: d["content"] for d in notes_store().collection.find({})}
    archived = [(x["note_id"], x["content"]) for x in archive_lines() if not x.get("restored")]
    return {"notes": notes, "archived": sorted(archived)}


def assert_nothing_lost_or_doubled(note_ids: set[str], where: str) -> None:
    docs = list(notes_store().collection.find({}, {"note_id": 1}))
    in_collection = Counter(d["note_id"] for d in docs)
    lines = archive_lines()
    archived = Counter(x["note_id"] for x in lines if not x.get("restored"))
    assert max(in_collection.values(), default=1) == 1, f"{where}: a note doubled {docs}"
    same_lines = Counter((x["note_id"], x["archived_at"]) for x in lines)
    assert max(same_lines.values(), default=1) == 1, f"{where}: a line doubled {lines}"
    for note_id in note_ids:
        places = in_collection[note_id] + archived[note_id]
        assert places == 1, f"{where}: {note_id} is in {places} places ({lines})"
    assert set(in_collection) | set(archived) == note_ids, where


def events(action: str, status: str) -> list[AuditEvent]:
    return list(AuditEvent.objects.filter(action=action, status=status, undo_of__isnull=True))


# --- archive one note ---------------------------------------------------------------------------


def test_an_archive_killed_at_any_step_is_finished_by_a_retry_and_undone_whole(
    crash_server, child_stores
):
    ids = {"note_0000000000c1", "note_0000000000c2"}
    original: dict[str, Any] = {}

    def plant() -> dict[str, Any]:
        fresh_memory()
        for note_id in sorted(ids):
            plant_note(note_id)
        original.update(memory_state())
        return {"note_id": "note_0000000000c1"}

    def recover(crashed_after: int, steps: list[str]) -> None:
        where = f"archive killed after write {crashed_after} of {steps}"
        if notes_store().get_full_note("note_0000000000c1") is not None:
            note_archive(actor=ADMIN, note_id="note_0000000000c1")  # the user clicks again
        reap()
        assert_nothing_lost_or_doubled(ids, where)
        assert "note_0000000000c1" not in memory_state()["notes"], where
        (done,) = events("note.archive", AuditEvent.DONE)  # by the retry, or the reaper
        audit_undo(actor=ADMIN, event_id=done.pk)
        assert memory_state() == original, where

    steps = crash_at_every_step(crash_server, "archive", child_stores, plant, recover)
    assert steps == [
        "AuditEvent.save",
        "ArchiveFile.append",
        "MongoNotesStore.delete_if_unchanged",
        "AuditEvent.save",
    ]


# --- restore from the archive -------------------------------------------------------------------


def test_a_restore_killed_at_any_step_is_finished_by_a_retry_and_undone_whole(
    crash_server, child_stores
):
    ids = {"note_0000000000d1", "note_0000000000d2"}
    original: dict[str, Any] = {}

    def plant() -> dict[str, Any]:
        fresh_memory()
        plant_note("note_0000000000d2")
        line = agent_archive_line("note_0000000000d1", 3)
        (Path(django_settings.MEMORY_DIR) / "archive.jsonl").write_text(json.dumps(line) + "\n")
        original.update(memory_state())
        return {"note_id": "note_0000000000d1"}

    def recover(crashed_after: int, steps: list[str]) -> None:
        where = f"restore killed after write {crashed_after} of {steps}"
        lines = archive_lines()
        if not any(x["note_id"] == "note_0000000000d1" and x.get("restored") for x in lines):
            note_restore(actor=ADMIN, note_id="note_0000000000d1")  # the user clicks again
        reap()
        assert_nothing_lost_or_doubled(ids, where)
        assert "note_0000000000d1" in memory_state()["notes"], where
        (done,) = events("note.restore", AuditEvent.DONE)  # by the retry, or the reaper
        audit_undo(actor=ADMIN, event_id=done.pk)
        assert memory_state() == original, where

    steps = crash_at_every_step(crash_server, "restore", child_stores, plant, recover)
    assert steps == [
        "AuditEvent.save",
        "MongoNotesStore.insert_agent_documents",
        "ArchiveFile.rewrite",
        "AuditEvent.save",
    ]


# --- merge a review pair ------------------------------------------------------------------------


MERGE_A = "Lumen stores its vectors in MongoDB and answers search queries"
MERGE_B = "Lumen stores its vectors in MongoDB and answers search queries fast"
MERGED = "Lumen keeps its vectors in MongoDB and answers search queries fast"  # the curator's


@pytest.mark.parametrize(
    ("verdict", "action", "status", "text"),
    [
        ("merge", "pair.merge", ReviewPair.MERGED, MERGED),  # with the curator's text
        ("supersede", "pair.supersede", ReviewPair.SUPERSEDED, MERGE_A),  # the newer text
    ],
)
def test_a_pair_merge_killed_at_any_step_is_finished_by_a_retry_and_undone_whole(
    crash_server, child_stores, verdict, action, status, text
):
    ids = {"note_0000000000e1", "note_0000000000e2", "note_0000000000e3"}
    original: dict[str, Any] = {}
    content = MERGED if verdict == "merge" else None

    def plant() -> dict[str, Any]:
        fresh_memory()
        plant_note("note_0000000000e1", importance=0.7, days_old=1, content=MERGE_A)
        plant_note("note_0000000000e2", importance=0.4, days_old=9, content=MERGE_B)
        plant_note("note_0000000000e3")
        original.update(memory_state())
        pair = ReviewPair.objects.create(
            note_a="note_0000000000e1",
            note_b="note_0000000000e2",
            hash_a="a",
            hash_b="b",
            similarity=0.97,
        )
        return {"pair_id": pair.pk, "verdict": verdict, "content": content}

    def recover(crashed_after: int, steps: list[str]) -> None:
        where = f"{verdict} killed after write {crashed_after} of {steps}"
        pair = ReviewPair.objects.get()
        if pair.status == ReviewPair.PENDING:  # still in the queue: the curator decides again
            try:
                review_verdict(actor=ADMIN, pair_id=pair.pk, verdict=verdict, content=content)
            except NoteNotFound as e:
                pytest.fail(f"{where}: the retry was refused: {e}")
        reap()
        assert_nothing_lost_or_doubled(ids, where)
        state = memory_state()
        assert "note_0000000000e2" not in state["notes"], where
        assert state["notes"]["note_0000000000e1"] == text, where
        assert ReviewPair.objects.get().status == status, where
        (done,) = events(action, AuditEvent.DONE)
        audit_undo(actor=ADMIN, event_id=done.pk)
        assert memory_state() == original, where
        assert ReviewPair.objects.get().status == ReviewPair.PENDING, where

    steps = crash_at_every_step(crash_server, "merge", child_stores, plant, recover)
    assert steps == [
        "AuditEvent.save",
        "MongoNotesStore.merge_into_primary",
        "ArchiveFile.append",
        "MongoNotesStore.delete_if_unchanged",
        "AuditEvent.save",
        "ReviewPair.save",
    ]


# --- purge the archive --------------------------------------------------------------------------


def test_a_purge_killed_at_any_step_drops_each_old_line_once_and_undo_puts_it_back(
    crash_server, child_stores
):
    old = [agent_archive_line(f"note_00000000f{i:03d}", 200) for i in range(3)]
    recent = agent_archive_line("note_00000000f100", 2)
    ids = {line["note_id"] for line in [*old, recent]}

    def plant() -> dict[str, Any]:
        fresh_memory()
        text = "".join(json.dumps(line) + "\n" for line in [*old, recent])
        (Path(django_settings.MEMORY_DIR) / "archive.jsonl").write_text(text)
        return {"days": 90}

    def recover(crashed_after: int, steps: list[str]) -> None:
        where = f"purge killed after write {crashed_after} of {steps}"
        archive_purge(actor=ADMIN, days=90)  # the admin purges again
        reap()
        assert [x["note_id"] for x in archive_lines()] == [recent["note_id"]], where
        # each line was dropped by one event, done (by the purge, or the reaper): undo of
        # every done purge puts each line back once
        for event in events("archive.purge", AuditEvent.DONE):
            audit_undo(actor=ADMIN, event_id=event.pk)
        assert Counter(x["note_id"] for x in archive_lines()) == Counter(ids), where

    steps = crash_at_every_step(crash_server, "purge", child_stores, plant, recover)
    assert steps == ["AuditEvent.save", "ArchiveFile.rewrite", "AuditEvent.save"]


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
