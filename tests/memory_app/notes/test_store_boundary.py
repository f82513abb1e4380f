"""The notes store as the one boundary to MongoDB: search never misses a note that comes
back, and a bug is told apart from an outage (500, not retried; 503, retried)."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest

from memory_app.notes.lib.mongo_store import utcnow_naive
from memory_app.notes.lib.replica.index import VectorIndex
from memory_app.notes.services import note_archive, pair_merge
from memory_app.notes.stores import notes_store
from qqweb.audit.models import AuditEvent
from qqweb.audit.services import audit_undo
from qqweb.jobs.models import Run
from qqweb.jobs.runner import job_create
from qqweb.jobs.tasks import run_job_task
from qqweb.lib.actors import Actor
from qqweb.lib.errors import StoreError, StoreUnavailable
from tests.helpers import add_note, vector
from tests.services import free_port

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("stores")]

CORA = Actor("user", "cora-curator", role="curator")
ADA = Actor("user", "ada-admin", role="admin")
LUMEN = "The Lumen beta ships to the first ten customers in February"


def found(text: str, limit: int = 3) -> list[str]:
    return [hit["note_id"] for hit in notes_store().search_similar(vector(text), limit=limit)]


def other_notes() -> None:
    add_note("note_0000000000b1", "Priya reviews pull requests on Fridays")
    add_note("note_0000000000b2", "Kafka carries the billing events between services")
    add_note("note_0000000000b3", "The office coffee machine is broken again")


def test_a_note_brought_back_by_undoing_its_archive_is_found_by_search_at_once():
    other_notes()
    add_note("note_0000000000a1", LUMEN)
    assert found(LUMEN)[0] == "note_0000000000a1"
    note_archive(actor=CORA, note_id="note_0000000000a1")
    assert "note_0000000000a1" not in found(LUMEN)

    event = AuditEvent.objects.get(action="note.archive")
    audit_undo(actor=CORA, event_id=event.pk)  # the note keeps its old updated_at

    assert found(LUMEN)[0] == "note_0000000000a1"  # no wait, no rebuild


def test_a_note_brought_back_by_undoing_a_merge_is_found_by_search_at_once():
    other_notes()
    add_note("note_0000000000a1", LUMEN, importance=0.8)
    add_note("note_0000000000a2", LUMEN + ", says Priya", importance=0.4)
    pair_merge(actor=CORA, note_a_id="note_0000000000a1", note_b_id="note_0000000000a2")
    assert "note_0000000000a2" not in found(LUMEN)

    audit_undo(actor=CORA, event_id=AuditEvent.objects.get(action="pair.merge").pk)

    assert set(found(LUMEN, limit=2)) == {"note_0000000000a1", "note_0000000000a2"}


def test_undoing_a_reembed_puts_the_old_vector_back_in_search(settings):
    other_notes()
    add_note("note_0000000000a1", LUMEN)
    store = notes_store()
    store.collection.update_one(  # the agent wrote it with an embedding that failed
        {"note_id": "note_0000000000a1"}, {"$set": {"embedding": []}}
    )
    deadline = time.monotonic() + 3  # the agent's write reaches the index in the background
    while store.vector_index.holds("note_0000000000a1") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert "note_0000000000a1" not in found(LUMEN)
    run = job_create(kind="reembed", actor=ADA)
    run_job_task.apply(args=[run.pk])
    assert found(LUMEN)[0] == "note_0000000000a1"

    audit_undo(actor=ADA, event_id=AuditEvent.objects.get(action="notes.reembed").pk)

    assert "note_0000000000a1" not in found(LUMEN)


def _agent_inserts_a_note_written_a_month_ago() -> None:
    """The agent's own insert (not through qqweb's store), from a host whose clock says
    the note was last updated a month ago."""
    then = utcnow_naive() - timedelta(days=30)
    notes_store().collection.insert_one(
        {
            "note_id": "note_0000000000c1",
            "content": LUMEN,
            "embedding": vector(LUMEN),
            "section": "Key Topics",
            "metadata": {},
            "importance": 0.5,
            "decay_rate": 0.01,
            "access_count": 0,
            "created_at": then,
            "updated_at": then,
            "last_accessed": None,
        }
    )


@pytest.mark.parametrize("change_stream", [True, False], ids=["change-stream", "id-diff"])
def test_a_note_the_agent_writes_with_an_old_updated_at_is_found_within_the_interval(
    change_stream,
):
    other_notes()
    index = VectorIndex(notes_store(), refresh_interval=0.5, use_change_stream=change_stream)
    try:
        assert index.search(vector(LUMEN), limit=1).hits[0][0] != "note_0000000000c1"
        assert index.follows_change_stream is change_stream  # SecantusDB has change streams

        _agent_inserts_a_note_written_a_month_ago()

        deadline = time.monotonic() + 3
        while not index.holds("note_0000000000c1") and time.monotonic() < deadline:
            time.sleep(0.1)
        assert index.search(vector(LUMEN), limit=1).hits[0][0] == "note_0000000000c1"
    finally:
        index.close()


def test_a_note_the_agent_deletes_leaves_search_within_the_interval():
    other_notes()
    _agent_inserts_a_note_written_a_month_ago()
    index = VectorIndex(notes_store(), refresh_interval=0.5, use_change_stream=False)
    try:
        assert index.holds("note_0000000000c1")
        notes_store().collection.delete_one({"note_id": "note_0000000000c1"})  # the agent
        time.sleep(0.6)
        assert not index.holds("note_0000000000c1")
    finally:
        index.close()


# --- a bug is not an outage ---------------------------------------------------------------


def _somebody_made_importance_unique() -> None:
    """An index someone added by hand: two notes may no longer share an importance, so
    a write that would make them equal is refused by the server (a DuplicateKeyError)."""
    notes_store().collection.create_index("importance", unique=True, name="by_hand")


def test_a_duplicate_key_is_a_500_naming_the_store_and_changes_nothing(curator_client):
    add_note("note_0000000000a1", "Priya reviews pull requests on Fridays", importance=0.3)
    add_note("note_0000000000a2", LUMEN, importance=0.5)
    _somebody_made_importance_unique()
    note = notes_store().get_full_note("note_0000000000a2")
    assert note is not None

    response = curator_client.patch(
        "/api/notes/note_0000000000a2",
        {"importance": 0.3, "expected_updated_at": note["updated_at"].isoformat()},
        content_type="application/json",
    )

    assert response.status_code == 500
    error = response.json()["error"]
    assert error["code"] == "store_error" and error["store"] == "mongodb"
    assert "refused" in error["message"] and "duplicate key" in error["message"].lower()
    assert notes_store().get_full_note("note_0000000000a2")["importance"] == 0.5
    assert AuditEvent.objects.get(action="note.edit").status == AuditEvent.FAILED


def test_a_stopped_server_is_a_503_the_client_may_retry(curator_client, settings):
    settings.MONGODB_URI = f"mongodb://127.0.0.1:{free_port()}"
    settings.QQ_STORE_TIMEOUT_MS = 200
    response = curator_client.get("/api/notes")
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "store_unavailable"


def test_a_job_that_meets_a_bug_fails_at_once_while_an_outage_is_retried(settings):
    for suffix in ("1", "2"):  # two notes that decay to the same value
        add_note(f"note_0000000000d{suffix}", f"Twin note number {suffix}", importance=0.6)
    old = utcnow_naive() - timedelta(days=60)
    notes_store().collection.update_many({}, {"$set": {"created_at": old, "updated_at": old}})
    notes_store().collection.create_index(
        "qqweb_decayed_importance", unique=True, sparse=True, name="by_hand"
    )

    bug = job_create(kind="decay", actor=CORA)
    result = run_job_task.apply(args=[bug.pk])

    assert result.failed() and isinstance(result.result, StoreError)
    bug.refresh_from_db()
    assert bug.status == Run.FAILED
    assert "refused" in bug.error and "tries" not in bug.error  # not retried

    settings.MONGODB_URI = f"mongodb://127.0.0.1:{free_port()}"
    settings.QQ_STORE_TIMEOUT_MS = 200
    outage = job_create(kind="decay", actor=CORA)
    result = run_job_task.apply(args=[outage.pk])
    assert result.failed() and isinstance(result.result, StoreUnavailable)
    outage.refresh_from_db()
    assert outage.error.startswith("gave up after 4 tries: mongodb is unavailable")
