"""Django's own tables (SQLite, or PostgreSQL with QQ_TEST_DATABASE=postgres) while a dedup
scan writes thousands of pairs: every promotion made meanwhile either happens and answers
success, or does not happen. And a bulk change answers success once applied, whatever its
query string holds."""

from __future__ import annotations

import itertools
import threading
import time
from collections import Counter
from typing import Any

import pytest
import requests
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from memory_app.notes.models import ReviewPair
from memory_app.notes.services import duplicates_scan
from memory_app.notes.stores import core_notes, notes_store
from qqweb.audit.models import AuditEvent
from qqweb.jobs.models import Run
from qqweb.services import api_token_create
from tests.helpers import add_note

pytestmark = pytest.mark.usefixtures("transactional_db")

SHARED = "Lumen is the retrieval service built on MongoDB with vector search and a reranker"


@pytest.mark.sqlite
def test_the_database_runs_in_wal_mode_with_a_busy_timeout():
    with connection.cursor() as cursor:
        assert cursor.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert cursor.execute("PRAGMA busy_timeout").fetchone()[0] == 20_000


def test_promotions_during_a_dedup_scan_all_answer_success_and_are_all_recorded(
    curator_client, stores
):
    for i in range(80):
        add_note(f"note_00000000{i:04d}", f"{SHARED}, note {i}")
    run = Run.objects.create(kind="dedup_scan", params={"threshold": 0.85})
    errors: list[BaseException] = []

    def scan() -> None:
        try:
            for _ in range(3):
                duplicates_scan(run=run, threshold=0.85)
        except BaseException as e:  # reported by the test below
            errors.append(e)
        finally:
            connection.close()

    scanner = threading.Thread(target=scan)
    scanner.start()
    answers = [
        curator_client.post(
            "/api/core/promote",
            {"note_id": f"note_00000000{i:04d}", "category": "Projects"},
            content_type="application/json",
        ).status_code
        for i in range(30)
    ]
    scanner.join()

    assert errors == []
    assert ReviewPair.objects.count() == 80 * 79 // 2
    assert answers == [200] * 30
    core = core_notes().items_by_section()["Projects"]
    assert sum(f"{SHARED}, note" in item for item in core) == 30
    promotions = AuditEvent.objects.filter(action="core.promote")
    assert promotions.count() == 30
    assert set(promotions.values_list("status", flat=True)) == {AuditEvent.DONE}


def test_a_bulk_change_with_a_line_break_in_its_query_answers_success(curator_client, stores):
    add_note("note_0000000000a1", "Lumen uses MongoDB", importance=0.6)
    response = curator_client.post(
        reverse("memory_app:notes_bulk"),
        {
            "action": "set_importance",
            "importance": "0.3",
            "scope": "selected",
            "note_ids": ["note_0000000000a1"],
            "confirmed": "on",
            "query": "section=Key+Topics\r\nSet-Cookie: x=1",
        },
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 204
    assert "\n" not in response["HX-Redirect"] and "\r" not in response["HX-Redirect"]
    assert response["HX-Redirect"].startswith("/notes/?section=Key+Topics")
    assert "Set-Cookie" not in response.headers or "x=1" not in response["Set-Cookie"]
    assert notes_store().get_full_note("note_0000000000a1")["importance"] == 0.3


def test_a_rescan_that_finds_the_queue_as_it_is_writes_no_pair(mongo, memory_dir):
    ids = [f"note_{i:012d}" for i in range(12)]
    for i, note_id in enumerate(ids):
        add_note(note_id, f"{SHARED}, note {i}")
    rows = [(a, b, 0.9) for a, b in itertools.combinations(ids, 2)]
    run = Run.objects.create(kind="dedup_scan", params={"threshold": 0.85})
    duplicates_scan(run=run, threshold=0.85, rows=rows)
    with CaptureQueriesContext(connection) as queries:
        stats = duplicates_scan(run=run, threshold=0.85, rows=rows)
    assert stats["already_queued"] == len(rows) == 66
    writes = [q["sql"] for q in queries.captured_queries if "reviewpair" in q["sql"].lower()]
    assert not [sql for sql in writes if sql.lstrip().upper().startswith(("UPDATE", "INSERT"))]


# A rescan that finds every pair it queued before writes each of them again (its
# similarity, a skipped pair back to pending): with SCAN_PAIRS pairs, enough batches to
# outlast SQLite's busy timeout, which is cut from 20 s to BUSY_TIMEOUT_S here (on
# PostgreSQL a lock_timeout of as much) so that a
# few thousand pairs (not the 16,000 of the report) show it in seconds. The rescan lasts
# about 23 s, so a writer left waiting for the whole of it still fails; 2 s was too short
# for one batch of 100 pairs at load 6 (four full test runs on the 2 cores: a promote's
# audit write met "database is locked" once).
SCAN_NOTES = 90  # 4,005 pairs
BUSY_TIMEOUT_S = 5
# A reading script paced within its token's rate (QQ_API_TOKEN_RATE, 600 a minute): the
# rescan's pauses make it last tens of seconds on a loaded machine, and a script asking
# back to back met 429 instead.
READER_PAUSE_S = 0.15


def test_token_requests_during_a_rescan_of_thousands_of_queued_pairs_never_answer_500(
    live_server, viewer, curator, mongo, memory_dir
):
    """Loopback load: three scripts call the API with their tokens (over HTTP, the
    server's own threads) while a rescan rewrites thousands of queued pairs: two read,
    one promotes notes to core.md (each promotion writes its audit event to the database).
    Every request answers 200: a token request writes nothing to wait for, and the
    scan's batches leave the database to other writers in between."""
    ids = [f"note_{i:012d}" for i in range(SCAN_NOTES)]
    for i, note_id in enumerate(ids):
        add_note(note_id, f"{SHARED}, note {i}")
    rows = [(a, b, 0.9) for a, b in itertools.combinations(ids, 2)]
    run = Run.objects.create(kind="dedup_scan", params={"threshold": 0.85})
    duplicates_scan(run=run, threshold=0.85, rows=rows)
    ReviewPair.objects.update(status=ReviewPair.SKIPPED, similarity=0.5)  # all asked again
    tokens = [api_token_create(user=viewer, name=f"reader {i}")[1] for i in range(2)]
    promoter = api_token_create(user=curator, name="promoter")[1]
    for raw in [*tokens, promoter]:  # each script has run before: its token was used a moment ago
        assert _get(live_server.url, raw).status_code == 200
    _wait_for_locks_at_most(BUSY_TIMEOUT_S)
    scan_errors: list[BaseException] = []
    answers: list[int] = []

    def rescan() -> None:
        try:
            duplicates_scan(run=run, threshold=0.85, rows=rows)
        except BaseException as e:  # reported below
            scan_errors.append(e)
        finally:
            connection.close()

    def reader(raw: str) -> None:
        while scanner.is_alive():
            answers.append(_get(live_server.url, raw).status_code)
            time.sleep(READER_PAUSE_S)

    def promote() -> None:
        for note_id in ids:
            if not scanner.is_alive():
                break
            body = {"note_id": note_id, "category": "Projects"}
            answers.append(_post(live_server.url, promoter, "/api/core/promote", body).status_code)

    scanner = threading.Thread(target=rescan)
    scripts = [threading.Thread(target=reader, args=(raw,)) for raw in tokens]
    scripts.append(threading.Thread(target=promote))
    try:
        scanner.start()
        for thread in scripts:
            thread.start()
        scanner.join()
        for thread in scripts:
            thread.join()
    finally:
        _wait_for_locks_at_most(None)
    assert scan_errors == []
    assert ReviewPair.objects.filter(status=ReviewPair.PENDING).count() == len(rows)
    assert answers and set(answers) == {200}, Counter(answers)
    assert AuditEvent.objects.filter(action="core.promote").count() >= 1


def _wait_for_locks_at_most(seconds: float | None) -> None:
    """How long a connection opened from now on waits for a lock before its statement
    fails (None: the settings' own): SQLite's busy timeout (20 s in the settings), or
    PostgreSQL's lock_timeout (none in the settings)."""
    options = connection.settings_dict["OPTIONS"]
    if connection.vendor == "sqlite":
        options["timeout"] = 20 if seconds is None else seconds
    elif seconds is None:
        options.pop("options", None)
    else:
        options["options"] = f"-c lock_timeout={int(seconds * 1000)}"
    connection.close()


def _get(base: str, raw: str) -> requests.Response:
    return requests.get(f"{base}/api/me", headers={"Authorization": f"Bearer {raw}"}, timeout=60)


def _post(base: str, raw: str, path: str, body: dict[str, Any]) -> requests.Response:
    headers = {"Authorization": f"Bearer {raw}"}
    return requests.post(f"{base}{path}", json=body, headers=headers, timeout=60)
