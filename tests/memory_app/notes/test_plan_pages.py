"""A plan longer than a page: the run page lists every row, 200 a page, with links to
the other pages that work without JavaScript, and reads only the page's rows."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from memory_app.notes.services.jobs import scheduled_run_create
from memory_app.notes.stores import notes_store
from qqweb.jobs.models import Run
from qqweb.jobs.runner import job_create, job_run
from qqweb.lib.actors import Actor
from tests.helpers import plant_note

pytestmark = pytest.mark.django_db

FADED = [f"note_{i:012d}" for i in range(450)]


def _big_plan() -> Run:
    for note_id in FADED:
        plant_note(note_id, importance=0.01, days_old=300)
    run = job_create(
        kind="archival", actor=Actor("user", "ada-admin"), dry_run=True, params={"threshold": 0.05}
    )
    job_run(run=run)
    run.refresh_from_db()
    assert run.status == "done" and run.plan_size == 450
    Run.objects.create(  # an application: the plan is no longer checked as a whole
        kind="archival", started_by="user:ada-admin", status="running", plan_of=run
    )
    return run


def _rows(page: str) -> list[str]:
    table = page.split('id="plan-table"')[1].split("</table>")[0]
    return re.findall(r'data-note-id="(note_\d+)"', table)


def test_a_long_plan_is_listed_200_rows_a_page_with_links_to_the_others(admin_client_, stores):
    run = _big_plan()
    url = reverse("memory_app:maintenance_run", args=[run.pk])
    first = admin_client_.get(url).content.decode()
    assert "/api/" not in first  # no API address to copy instead of the rows
    assert 'href="?page=2#plan-table"' in first and "Next 200 →" in first
    assert "1-200 of 450" in first
    third = admin_client_.get(url, {"page": 3}).content.decode()
    assert "401-450 of 450" in third and "← Previous 200" in third and "Next" not in third
    seen = _rows(first) + _rows(admin_client_.get(url, {"page": 2}).content.decode())
    seen += _rows(third)
    assert len(seen) == 450 and set(seen) == set(FADED)


def test_a_page_of_the_plan_reads_its_rows_not_the_whole_plan(admin_client_, stores):
    run = _big_plan()
    url = reverse("memory_app:maintenance_run", args=[run.pk])
    with CaptureQueriesContext(connection) as queries:
        page = admin_client_.get(url, {"page": 2}).content.decode()
    assert len(_rows(page)) == 200
    table = Run._meta.db_table
    whole = [
        q["sql"]
        for q in queries.captured_queries
        if f'"{table}"."plan"' in q["sql"] and "json_each" not in q["sql"]
    ]
    assert not whole, whole


@pytest.mark.parametrize(("page", "says"), [("4", "no page 4"), ("two", "whole number")])
def test_a_page_the_plan_does_not_have_is_refused_with_why(admin_client_, stores, page, says):
    run = _big_plan()
    response = admin_client_.get(
        reverse("memory_app:maintenance_run", args=[run.pk]), {"page": page}
    )
    assert response.status_code == 400
    assert says in response.content.decode()


def test_an_expired_plans_page_reads_only_the_items_of_the_notes_changed_since(
    admin_client_, stores
):
    for note_id in FADED:
        plant_note(note_id, importance=0.01, days_old=300)
    run = scheduled_run_create(kind="archival")
    job_run(run=run)
    notes_store().update_importance(FADED[7], 0.02)  # the agent, meanwhile
    url = reverse("memory_app:maintenance_run", args=[run.pk])
    with CaptureQueriesContext(connection) as queries:
        page = admin_client_.get(url, {"page": 2}).content.decode()
    assert "This plan expired: 1 of its notes changed" in page
    assert f'data-note-id="{FADED[7]}"' in page.split('id="plan-changed"')[1]
    table = Run._meta.db_table
    whole = [q["sql"] for q in queries.captured_queries if f'"{table}"."plan"' in q["sql"]]
    assert not whole, whole
