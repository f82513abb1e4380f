"""Maintenance jobs as services: dry runs, idempotence, undo of a whole run, the lock,
retries when the store is down."""

import json
import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from memory_app.notes.lib.mongo_store import utcnow_naive
from memory_app.notes.stores import archive_manager, notes_store
from qqweb.audit.models import AuditEvent
from qqweb.audit.services import batch_undo
from qqweb.jobs.errors import JobBusy
from qqweb.jobs.models import JobLock, Run
from qqweb.jobs.runner import job_create, job_run
from qqweb.jobs.tasks import run_job_task
from qqweb.lib.actors import Actor
from tests.helpers import plant_note as plant
from tests.helpers import vector
from tests.services import free_port

ADA = Actor("user", "ada-admin", role="admin")
NOW = utcnow_naive()
pytestmark = pytest.mark.django_db


def snapshot():
    # a note brought back by an undo is kept from archival a while (test_restore_grace)
    # and marked as put back by qqweb (the incremental dedup scan compares it again)
    return sorted(
        notes_store().collection.find({}, {"_id": 0, "qqweb_keep_until": 0, "qqweb_written_at": 0}),
        key=lambda d: d["note_id"],
    )


def archive_text():
    path = archive_manager().archive_file
    return path.read_text() if path.exists() else ""


def run(kind, dry_run=False, **params):
    job = job_create(kind=kind, actor=ADA, dry_run=dry_run, params=params)
    job_run(run=job)
    job.refresh_from_db()
    return job


@pytest.fixture
def memory(mongo, memory_dir):
    """Three notes with words of their own (a3 has no embedding); returns them by id."""
    return {
        doc["note_id"]: doc
        for doc in [
            plant("note_0000000000a1", 0.9, 10),
            plant("note_0000000000a2", 0.03, 300),
            plant("note_0000000000a3", 0.6, 40, embedding=[]),
        ]
    }


@pytest.mark.parametrize(
    "kind", ["decay", "archival", "archive_purge", "reembed", "dedup_scan", "promotion_scan"]
)
def test_a_dry_run_reports_and_changes_nothing(memory, kind):
    # other words, but the same vector as a1: the dedup scan has a pair to report
    plant("note_0000000000a4", 0.5, 10, embedding=memory["note_0000000000a1"]["embedding"])
    before, file_before = snapshot(), archive_text()
    job = run(kind, dry_run=True)
    assert job.status == "done" and job.stats
    assert snapshot() == before and archive_text() == file_before
    assert AuditEvent.objects.count() == 0


def test_decay_twice_does_no_more_than_once_and_undo_restores_the_notes(memory):
    before = snapshot()
    first = run("decay")
    assert first.stats["written"] == 3
    after_first = snapshot()
    second = run("decay")
    assert second.stats["written"] == 0 and snapshot() == after_first
    undone, refused = batch_undo(actor=ADA, batch_id=first.batch_id)
    assert (undone, refused) == (1, [])
    assert snapshot() == before


def test_archival_uses_the_agents_reason_and_undo_restores_notes_and_file(memory):
    before, file_before = snapshot(), archive_text()
    job = run("archival")
    assert job.stats["archived"] == 1
    line = json.loads(archive_text())
    assert line["note_id"] == "note_0000000000a2"
    assert line["reason"].startswith("importance_decay_0.0")
    assert run("archival").stats["archived"] == 0  # nothing twice
    batch_undo(actor=ADA, batch_id=job.batch_id)
    assert snapshot() == before and archive_text() == file_before


def test_reembed_fills_missing_embeddings_only_and_can_be_undone(memory):
    # a1 keeps a vector an older model gave it, not the current embedder's: re-embedding
    # every note would replace it, filling the missing ones must not.
    older = vector("what an older embedding model made of note a1")
    notes_store().collection.update_one(
        {"note_id": "note_0000000000a1"}, {"$set": {"embedding": older}}
    )
    before = snapshot()
    job = run("reembed")
    assert job.stats["candidates"] == 1
    doc = notes_store().get_full_note("note_0000000000a3")
    assert len(doc["embedding"]) == 384
    assert notes_store().get_full_note("note_0000000000a1")["embedding"] == older
    batch_undo(actor=ADA, batch_id=job.batch_id)
    assert snapshot() == before


def test_purge_uses_the_retention_setting(memory, settings):
    archive_manager().append_entries(
        [
            {
                "note_id": "note_0000000000b1",
                "content": "old",
                "reason": "low_importance",
                "archived_at": (timezone.localtime() - timedelta(days=200))
                .replace(tzinfo=None)
                .isoformat(),
                "original_created_at": None,
                "access_count": 0,
                "metadata": {},
            }
        ]
    )
    settings.QQ_ARCHIVE_RETENTION_DAYS = 90
    assert run("archive_purge").stats["dropped"] == 1
    assert archive_text() == ""


def test_only_one_run_of_a_kind_at_a_time_and_a_stale_lock_expires(memory):
    holder = job_create(kind="decay", actor=ADA)
    JobLock.objects.create(
        kind="decay", run=holder, expires_at=timezone.now() + timedelta(minutes=5)
    )
    with pytest.raises(JobBusy, match="decay is running already"):
        job_run(run=job_create(kind="decay", actor=ADA))
    JobLock.objects.filter(kind="decay").update(expires_at=timezone.now() - timedelta(seconds=1))
    assert run("decay").status == "done"
    assert not JobLock.objects.exists()


def test_a_store_that_is_down_is_retried_then_fails_with_the_reason(memory, settings):
    settings.MONGODB_URI = f"mongodb://127.0.0.1:{free_port()}"
    settings.QQ_STORE_TIMEOUT_MS = 200
    job = job_create(kind="decay", actor=ADA)
    result = run_job_task.apply(args=[job.pk])  # the real task, in this process
    assert result.failed()
    job.refresh_from_db()
    assert job.status == "failed"
    assert job.error.startswith("gave up after 4 tries: mongodb is unavailable")
    assert not JobLock.objects.exists()


def test_an_unknown_job_is_refused():
    with pytest.raises(Exception, match="job: must be one of"):
        job_create(kind="vacuum", actor=ADA)
    assert Run.objects.count() == 0


def test_auto_consolidation_waits_for_the_note_limit_then_merges_and_undoes(memory, settings):
    # the same text and vector as a1: a near-duplicate
    a1 = memory["note_0000000000a1"]
    plant("note_0000000000a4", 0.5, 10, embedding=a1["embedding"], content=a1["content"])
    assert "not more than 100" in run("auto_consolidation").stats["skipped"]
    before, file_before = snapshot(), archive_text()
    job = run("auto_consolidation", force=True)
    assert job.stats["merged"] == 1 and notes_store().count() == 3
    assert "Consolidated with note_0000000000a1" in archive_text()
    batch_undo(actor=ADA, batch_id=job.batch_id)
    after = snapshot()
    for doc in [*before, *after]:
        doc.pop("updated_at", None)
        doc.pop("qqweb_merged_ids", None)
    for b, a in zip(before, after, strict=True):
        diff = {k: (b.get(k), a.get(k)) for k in set(b) | set(a) if b.get(k) != a.get(k)}
        assert diff == {}, (b["note_id"], diff)
    assert archive_text() == file_before


def test_a_vector_index_rebuild_reaches_the_other_processes_indexes(memory):
    from memory_app.notes.lib.replica.index import VectorIndex

    # another process's index, on a server without change streams (it diffs ids and
    # updated_at), so a write that keeps updated_at is one only a rebuild shows it
    other = VectorIndex(notes_store(), refresh_interval=0, use_change_stream=False)
    other.refresh()
    notes_store().collection.update_one(  # a change the diff cannot see (same updated_at)
        {"note_id": "note_0000000000a3"}, {"$set": {"embedding": [0.2] * 384}}
    )
    other.refresh()
    assert not other.holds("note_0000000000a3")
    assert run("vector_index_rebuild").stats["indexed"] == 3
    other.refresh()
    assert other.holds("note_0000000000a3")
    other.close()


def test_the_jobs_page_and_a_runs_page_say_its_stats_in_the_same_words(memory, admin_client_):
    rebuilt = run("vector_index_rebuild")  # its stats hold a dict: {"dimensions": {"384": 2}}
    planned = run("archival", dry_run=True)  # its last stat is the sample, kept apart
    jobs = admin_client_.get(reverse("memory_app:maintenance")).content.decode()

    def result(run_id):
        row = jobs[jobs.index(f'data-run-id="{run_id}"') :]
        return row[row.index('<td class="opt">') : row.index("</tr>")]

    assert "vectors by dimension 384: 2" in result(rebuilt.pk)  # a3 has no vector
    assert "{" not in result(rebuilt.pk) and "&#x27;" not in result(rebuilt.pk)
    assert "notes looked at 3" in result(planned.pk) and "sample" not in result(planned.pk)
    assert not re.search(r"·\s*</td>", result(planned.pk))  # no separator left dangling
    page = admin_client_.get(reverse("memory_app:maintenance_run", args=[rebuilt.pk]))
    assert '<dt>vectors by dimension</dt><dd data-stat="dimensions">384: 2</dd>' in (
        page.content.decode()
    )


def test_a_runs_parameters_read_in_words(memory, admin_client_):
    scan = run("dedup_scan", dry_run=True, full=True)
    page = admin_client_.get(reverse("memory_app:maintenance_run", args=[scan.pk]))
    shown = page.content.decode()
    parameters = shown[shown.index("<dt>parameters</dt>") :]
    parameters = parameters[: parameters.index("</dd>")]
    assert "full yes" in parameters and "True" not in parameters
