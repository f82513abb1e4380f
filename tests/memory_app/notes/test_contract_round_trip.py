"""Round trip: what qqweb writes, the agent reads the way it wrote it.

Data planted exactly as the contract says the agent writes it (varied decay_rate, 1024-d
vectors next to 384-d ones, a torn archive line, a per-agent notes file), then acted on
through qqweb's real services, pages and API.
"""

import fcntl
import json
import threading
from datetime import timedelta

import pytest
from django.urls import reverse

from memory_app.notes.lib import NotesManager
from memory_app.notes.lib.documents import utcnow_naive
from memory_app.notes.models import ReviewPair
from memory_app.notes.services import duplicates_scan, pair_merge
from memory_app.notes.stores import archive_manager, notes_store
from qqweb.audit.models import AuditEvent
from qqweb.audit.services import audit_undo
from qqweb.jobs.runner import job_create, job_run
from qqweb.jobs.runs import run_create
from qqweb.lib.actors import Actor
from tests.helpers import vector
from tests.memory_app.notes.agent_docs import (
    ANALYZER,
    CREATED,
    PROVENANCE,
    agent_doc,
    archive_line,
    plant,
    vector_1024,
)

pytestmark = pytest.mark.usefixtures("mongo")

AGENT_MODEL_HINT = "QQ_EMBEDDING_BACKEND=openai with TEI_URL"


def api(client, method, url, body=None):
    return getattr(client, method)(url, json.dumps(body or {}), content_type="application/json")


def scan_pairs():
    run = run_create(kind="dedup_scan", actor=Actor("user", "ada-admin"))
    duplicates_scan(run=run, threshold=0.85)
    return ReviewPair.objects.get()


# 1. one rule for the default primary: the page, the API and auto-consolidation


@pytest.mark.parametrize("how", ["api", "auto_consolidation"])
def test_a_merge_without_a_primary_keeps_the_higher_importance_note(curator_client, stores, how):
    text = "Lumen stores its notes in MongoDB with vector search"
    reworded = "Lumen keeps its notes in MongoDB with vector search"  # the judge: the same
    plant(
        agent_doc("note_0000000000a1", text, vector(text), importance=0.4),
        agent_doc("note_0000000000b2", reworded, vector(reworded), importance=0.7),
    )
    pair = scan_pairs()
    assert (pair.note_a, pair.note_b) == ("note_0000000000a1", "note_0000000000b2")
    page = curator_client.get(reverse("memory_app:review")).content.decode()
    assert 'value="note_0000000000b2" checked' in page  # the page pre-selects the agent's

    if how == "api":
        response = api(
            curator_client, "post", f"/api/duplicates/{pair.pk}/verdict", {"verdict": "merge"}
        )
        assert response.status_code == 200 and response.json()["primary"] == "note_0000000000b2"
    else:
        run = job_create(  # at the review queue's threshold (the job's own is 0.95)
            kind="auto_consolidation",
            actor=Actor("user", "ada-admin"),
            params={"force": True, "threshold": 0.85, "merge": "unflagged"},
        )
        job_run(run=run)

    assert notes_store().get_full_note("note_0000000000a1") is None
    kept = notes_store().get_full_note("note_0000000000b2")
    assert kept["importance"] == 0.75 and kept["content"] == reworded
    [line] = archive_manager().read().notes
    assert line.note_id == "note_0000000000a1"
    assert line.reason.startswith("Consolidated with note_0000000000b2 (similarity: 0.")


@pytest.mark.django_db
def test_an_undone_merge_puts_back_the_fields_the_dashboard_does_not_know(stores):
    """A merge reads both notes typed; what it keeps for its undo is each document as
    stored, so a field of a newer agent comes back on both notes, untouched."""
    text = "Lumen stores its notes in MongoDB with vector search"
    primary = agent_doc(
        "note_0000000000a1", text, vector(text), importance=0.7, agent_v2_field={"nested": [1]}
    )
    secondary = agent_doc(
        "note_0000000000b2",
        text + " today",
        vector(text + " today"),
        importance=0.4,
        source=PROVENANCE,
        agent_v2_field="kept",
        metadata={"agent_v2": {"topic": "storage"}},
    )
    plant(primary, secondary)
    curator = Actor("user", "cora-curator", role="curator")
    pair_merge(actor=curator, note_a_id="note_0000000000a1", note_b_id="note_0000000000b2")
    assert notes_store().get_full_note("note_0000000000b2") is None

    audit_undo(actor=curator, event_id=AuditEvent.objects.get(action="pair.merge").pk)

    for planted in (primary, secondary):
        back = notes_store().get_full_note(planted["note_id"])
        assert back is not None
        theirs = {k: v for k, v in back.items() if not k.startswith("qqweb_")}
        assert theirs.pop("updated_at") >= planted["updated_at"]  # the primary's is rewritten
        assert theirs == {k: v for k, v in planted.items() if k != "updated_at"}


# 2. re-embedding keeps the stored dimension, or is refused with a 409


def test_a_content_edit_of_a_1024d_note_with_the_384d_model_is_a_409(curator_client, stores):
    plant(
        agent_doc("note_0000000001a1", "Lumen runs on qwen", vector_1024("Lumen runs on qwen")),
        agent_doc("note_0000000001b2", "a 384-d neighbour", vector("a 384-d neighbour")),
    )
    before = notes_store().get_full_note("note_0000000001a1")
    response = api(
        curator_client,
        "patch",
        "/api/notes/note_0000000001a1",
        {"expected_updated_at": CREATED.isoformat(), "content": "Lumen runs on Qwen3"},
    )
    assert response.status_code == 409, response.content
    error = response.json()["error"]
    assert error["code"] == "embedding_dimension_conflict"
    assert (error["stored_dimension"], error["model_dimension"]) == (1024, 384)
    assert "1024-dimensional" in error["message"] and "384-dimensional" in error["message"]
    assert AGENT_MODEL_HINT in error["message"]
    assert notes_store().get_full_note("note_0000000001a1") == before
    assert not AuditEvent.objects.exists()


def test_with_the_agents_model_an_edit_keeps_each_notes_dimension(curator_client, settings, stores):
    settings.QQ_EMBEDDING_DIMENSION = 1024
    plant(
        agent_doc("note_0000000001a1", "Lumen runs on qwen", vector_1024("Lumen runs on qwen")),
        agent_doc("note_0000000001b2", "a 384-d neighbour", vector("a 384-d neighbour")),
    )
    edited = api(
        curator_client,
        "patch",
        "/api/notes/note_0000000001a1",
        {"expected_updated_at": CREATED.isoformat(), "content": "Lumen runs on Qwen3"},
    )
    assert edited.status_code == 200, edited.content
    assert notes_store().get_full_note("note_0000000001a1")["embedding"] == pytest.approx(
        vector_1024("Lumen runs on Qwen3"), abs=1e-6
    )
    refused = api(
        curator_client,
        "patch",
        "/api/notes/note_0000000001b2",
        {"expected_updated_at": CREATED.isoformat(), "content": "a 384-d neighbour, edited"},
    )
    assert refused.status_code == 409
    assert refused.json()["error"]["stored_dimension"] == 384


def test_a_note_without_a_vector_is_re_embedded_in_the_collections_dimension(
    curator_client, stores
):
    plant(
        agent_doc("note_0000000001a1", "qwen one", vector_1024("qwen one")),
        agent_doc("note_0000000001a2", "qwen two", vector_1024("qwen two")),
        agent_doc("note_0000000001b3", "minilm", vector("minilm")),
        agent_doc("fedcba9876543210", "embedding failed", []),
    )
    response = api(
        curator_client,
        "patch",
        "/api/notes/fedcba9876543210",
        {"expected_updated_at": CREATED.isoformat(), "content": "embedding failed, fixed"},
    )
    assert response.status_code == 409
    assert response.json()["error"]["stored_dimension"] == 1024
    assert notes_store().get_full_note("fedcba9876543210")["embedding"] == []


def test_a_merge_with_the_curators_text_keeps_the_primarys_dimension(curator_client, stores):
    text = "Lumen stores its notes in MongoDB with vector search"
    plant(
        agent_doc("note_0000000002a1", text, vector_1024(text), importance=0.7),
        agent_doc("note_0000000002b2", text + " today", vector_1024(text + " today")),
    )
    pair = scan_pairs()
    url = f"/api/duplicates/{pair.pk}/verdict"
    refused = api(
        curator_client, "post", url, {"verdict": "merge", "content": "Lumen uses MongoDB"}
    )
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "embedding_dimension_conflict"
    assert notes_store().get_full_note("note_0000000002b2") is not None
    pair.refresh_from_db()
    assert pair.status == "pending" and not AuditEvent.objects.exists()

    simple = api(curator_client, "post", url, {"verdict": "merge"})  # no new text: no re-embed
    assert simple.status_code == 200
    assert len(notes_store().get_full_note("note_0000000002a1")["embedding"]) == 1024


def test_a_restore_into_a_1024d_collection_needs_the_agents_model(admin_client_, settings, stores):
    plant(
        agent_doc("note_0000000003a1", "qwen one", vector_1024("qwen one")),
        agent_doc("note_0000000003a2", "qwen two", vector_1024("qwen two")),
    )
    (stores["memory_dir"] / "archive.jsonl").write_text(
        json.dumps(archive_line("note_0000000003c3")) + "\n"
    )
    url = "/api/archive/note_0000000003c3/restore"
    refused = api(admin_client_, "post", url, {})
    assert refused.status_code == 409
    error = refused.json()["error"]
    assert (error["stored_dimension"], error["model_dimension"]) == (1024, 384)
    assert AGENT_MODEL_HINT in error["message"]
    assert notes_store().get_full_note("note_0000000003c3") is None
    assert not archive_manager().read().notes[0].restored

    settings.QQ_EMBEDDING_DIMENSION = 1024
    assert api(admin_client_, "post", url, {}).status_code == 200
    assert len(notes_store().get_full_note("note_0000000003c3")["embedding"]) == 1024


# 3. an append after the agent's torn last line starts a line of its own


def test_archiving_after_a_torn_agent_line_keeps_both_readable(curator_client, stores):
    plant(agent_doc("note_0123456789ab", "archived by a curator", [0.1] * 384, source=PROVENANCE))
    path = stores["memory_dir"] / "archive.jsonl"
    whole = json.dumps(archive_line("note_00000000000a"))
    torn = json.dumps(archive_line("note_00000000000b"))[:50]  # the agent's write, cut off
    path.write_text(f"{whole}\n{torn}")

    assert curator_client.delete("/api/notes/note_0123456789ab").status_code == 200

    lines = path.read_text().split("\n")
    assert lines[:2] == [whole, torn] and lines[-1] == ""
    ours = json.loads(lines[2])  # the agent reads each line with json.loads
    assert ours["note_id"] == "note_0123456789ab" and ours["source"] == PROVENANCE
    read = archive_manager().read()
    assert [n.note_id for n in read.notes] == ["note_00000000000a", "note_0123456789ab"]
    assert [b.raw for b in read.bad_lines] == [torn]


# 5. per-agent working notes lock their own lock file


def test_per_agent_working_notes_lock_notes_agent_id_lock(stores):
    memory_dir = stores["memory_dir"]
    path = memory_dir / "notes.task_0001.md"
    path.write_text(NotesManager(memory_dir).template())
    manager = NotesManager(memory_dir, agent_id="task_0001")

    def add_while_held(lock_name, item):
        """Add ``item`` in a thread while this test holds ``lock_name`` as the agent
        would; True when the add finished without waiting for the lock."""
        with open(memory_dir / lock_name, "a") as held:
            fcntl.flock(held.fileno(), fcntl.LOCK_EX)
            writer = threading.Thread(target=manager.add_note, args=("Key Topics", item))
            writer.daemon = True
            writer.start()
            writer.join(timeout=1)
            finished = not writer.is_alive()
            written_under_the_lock = item in path.read_text()
            fcntl.flock(held.fileno(), fcntl.LOCK_UN)
        writer.join(timeout=5)
        assert finished == written_under_the_lock
        return finished

    assert add_while_held("notes.lock", "not blocked by notes.lock")
    assert not add_while_held("notes.task_0001.lock", "waits for the agent")
    assert manager.items_by_section()["Key Topics"] == [
        "waits for the agent",
        "not blocked by notes.lock",
    ]
    assert not (memory_dir / "notes.md").exists()


# 6. the seed API where agent code calls it


def test_upsert_on_an_existing_note_keeps_importance_and_decay_rate_and_pushes_the_source(
    stores,
):
    plant(
        agent_doc(
            "note_0123456789ab",
            "first",
            [0.1] * 384,
            importance=0.7,
            decay_rate=0.05,
            access_count=3,
            source=PROVENANCE,
            source_history=[PROVENANCE],
        )
    )
    store = notes_store()
    store.upsert_note("note_0123456789ab", "second", [0.2] * 384, "Important Facts")
    doc = store.get_full_note("note_0123456789ab")
    assert (doc["content"], doc["importance"], doc["decay_rate"]) == ("second", 0.7, 0.05)
    assert (doc["access_count"], doc["created_at"]) == (3, CREATED)
    assert doc["source_history"] == [PROVENANCE]

    store.upsert_note("note_0123456789ab", "third", [0.2] * 384, "Key Topics", source=ANALYZER)
    doc = store.get_full_note("note_0123456789ab")
    assert doc["source"] == ANALYZER and doc["source_history"] == [PROVENANCE, ANALYZER]
    store.upsert_note("note_0123456789ab", "fourth", [], "Key Topics", importance=0.2)
    assert store.get_full_note("note_0123456789ab")["importance"] == 0.2


def test_upsert_of_a_new_note_sets_its_source_without_history_and_takes_an_empty_section(
    stores,
):
    store = notes_store()
    store.upsert_note("note_0123456789ab", "restored by the agent", [], "", source=PROVENANCE)
    doc = store.get_full_note("note_0123456789ab")
    assert doc["source"] == PROVENANCE and "source_history" not in doc
    assert (doc["importance"], doc["decay_rate"], doc["access_count"]) == (0.5, 0.01, 0)
    assert doc["section"] is None and doc["last_accessed"] is None


def test_get_note_returns_what_the_agents_archive_manager_reads(stores):
    plant(
        agent_doc(
            "note_0123456789ab", "x", [0.1] * 384, source=PROVENANCE, source_history=[PROVENANCE]
        )
    )
    note = notes_store().get_note("note_0123456789ab")
    assert note == notes_store().get_full_note("note_0123456789ab")
    assert note["source"] == PROVENANCE and note["source_history"] == [PROVENANCE]
    assert note["created_at"] == CREATED and note["metadata"] == {}


# the agent's own decay command against ours, over the rates its notes agent writes


def test_the_decay_dry_run_counts_the_notes_the_agents_command_treats_differently(
    admin_client_, stores
):
    days_ago = utcnow_naive() - timedelta(days=30, hours=1)
    plant(
        *(
            agent_doc(note_id, "x", [], decay_rate=rate, created_at=days_ago, updated_at=days_ago)
            for note_id, rate in (
                ("note_000000000005", 0.005),
                ("note_000000000010", 0.01),
                ("note_000000000050", 0.05),
            )
        )
    )
    ada = Actor("user", "ada-admin")

    def decay(dry_run):
        run = job_create(kind="decay", actor=ada, dry_run=dry_run)
        job_run(run=run)
        run.refresh_from_db()
        return run

    first = decay(dry_run=True)
    counts = ("agent_differs", "agent_differs_rate", "agent_differs_compounding")
    assert [first.stats[k] for k in counts] == [2, 2, 0]  # the two rates that are not 0.01
    page = admin_client_.get(reverse("memory_app:maintenance")).content.decode()
    assert "the agent's command would give <strong>2</strong> of 3 notes" in page

    decay(dry_run=False)
    second = decay(dry_run=True)
    # ours changes nothing now; the agent's would decay the decayed values again (the
    # note at 0.05 is at 0 either way)
    assert second.stats["changed"] == 0
    assert [second.stats[k] for k in counts] == [2, 1, 2]
    run_page = admin_client_.get(reverse("memory_app:maintenance_run", args=[second.pk]))
    assert "<strong>2</strong> of 3 notes" in run_page.content.decode()
