"""Django's own tables on SQLite while a dedup scan writes thousands of pairs: every
promotion made meanwhile either happens and answers success, or does not happen. And a
bulk change answers success once applied, whatever its query string holds."""

from __future__ import annotations

import threading

import pytest
from django.db import connection
from django.urls import reverse

from memory_app.models import MaintenanceRun, ReviewPair
from memory_app.services import duplicates_scan
from memory_app.stores import core_notes, notes_store
from qqweb.audit.models import AuditEvent
from tests.helpers import add_note

pytestmark = pytest.mark.usefixtures("transactional_db")

SHARED = "Lumen is the retrieval service built on MongoDB with vector search and a reranker"


def test_the_database_runs_in_wal_mode_with_a_busy_timeout():
    with connection.cursor() as cursor:
        assert cursor.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert cursor.execute("PRAGMA busy_timeout").fetchone()[0] == 20_000


def test_promotions_during_a_dedup_scan_all_answer_success_and_are_all_recorded(
    curator_client, stores
):
    for i in range(80):
        add_note(f"note_00000000{i:04d}", f"{SHARED}, note {i}")
    run = MaintenanceRun.objects.create(kind="dedup_scan", params={"threshold": 0.85})
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
