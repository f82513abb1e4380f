"""The API's edge: every bound is declared in the schema and refused with a 422 naming the
field, the one-line requests that used to answer 500 answer a 4xx or a 503, and every
answer under /api/ is JSON, errors included."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from django.test import Client, RequestFactory

from qqweb.api import api
from qqweb.jobs.models import Run
from qqweb.services import api_token_create, api_token_revoke
from qqweb.views import error_500
from tests.helpers import add_note


def _invalid(response: Any, field: str) -> None:
    assert response.status_code == 422, response.content
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert any(f.split(".")[-1] == field for f in error["fields"]), error


@pytest.mark.parametrize(
    ("url", "field"),
    [
        ("/api/graph/duplicates?limit=27341139632976562225152", "limit"),
        ("/api/graph/duplicates?limit=-566", "limit"),
        ("/api/graph/duplicates?threshold=NaN", "threshold"),
        ("/api/graph/duplicates?threshold=Infinity", "threshold"),
        ("/api/graph/entities/Person/Ada/neighbourhood?offset=" + "1" + "0" * 30, "offset"),
        ("/api/graph/entities/Person/Ada/neighbourhood?depth=3", "depth"),
        ("/api/graph/entities?limit=100000", "limit"),
        ("/api/graph/entities?cursor=" + "A" * 600, "cursor"),
        ("/api/graph/orphans?limit=0", "limit"),
        ("/api/notes?stale_days=1000000", "stale_days"),
        ("/api/notes?min_importance=NaN", "min_importance"),
        ("/api/notes?text=" + "x" * 501, "text"),
        ("/api/notes/histogram?bins=1000000", "bins"),
        ("/api/archive?limit=99999999999999999999", "limit"),
        ("/api/audit?limit=-1", "limit"),
        ("/api/core/candidates?limit=201", "limit"),
        ("/api/duplicates?limit=1001", "limit"),
        ("/api/maintenance/runs?limit=501", "limit"),
    ],
)
def test_a_query_parameter_out_of_its_bounds_is_a_422_naming_it(viewer_client, url, field):
    _invalid(viewer_client.get(url), field)


def test_a_purge_of_billions_of_days_is_a_422_naming_days(admin_client_):
    response = admin_client_.post(
        "/api/archive/purge", {"days": 3882401315}, content_type="application/json"
    )
    _invalid(response, "days")


def test_an_edit_from_a_time_before_year_one_in_utc_is_a_422(curator_client):
    response = curator_client.patch(
        "/api/notes/note_000000000001",
        {"expected_updated_at": "0001-01-01T00:00:00+14:00", "content": "x"},
        content_type="application/json",
    )
    _invalid(response, "expected_updated_at")


def test_a_search_with_a_score_that_is_not_a_number_is_a_422(viewer_client):
    response = viewer_client.post(
        "/api/notes/search",
        '{"query": "lumen", "min_score": NaN}',
        content_type="application/json",
    )
    assert response.status_code in (400, 422)
    assert "error" in response.json()


def _notes_cursor(value: Any, note_id: str = "note_000000000001") -> str:
    raw = json.dumps([value, note_id]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


@pytest.mark.parametrize(
    "value",
    [float("nan"), float("inf"), float("-inf"), 10**30, True, "x", [1]],
    ids=["nan", "infinity", "minus-infinity", "31-digits", "boolean", "text", "list"],
)
def test_a_notes_cursor_that_is_no_cursor_of_ours_is_a_400_naming_it(viewer_client, mongo, value):
    cursor = _notes_cursor(value)  # NaN and Infinity as Python's json writes them
    response = viewer_client.get(f"/api/notes?sort=importance&cursor={cursor}")
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "cursor"


@pytest.mark.parametrize(
    ("sort", "direction", "when"),
    [
        ("updated", "desc", "0001-01-01T00:00:00"),
        ("updated", "asc", "9999-12-31T23:59:59"),
        ("created", "desc", "0001-01-01T00:00:00"),
        ("created", "asc", "9999-12-31T23:59:59"),
    ],
)
def test_a_cursor_at_the_ends_of_the_calendar_pages_on(viewer_client, mongo, sort, direction, when):
    for i in range(3):
        add_note(f"note_{i:012x}", f"note {i}")
    cursor = _notes_cursor({"d": when})
    response = viewer_client.get(f"/api/notes?sort={sort}&direction={direction}&cursor={cursor}")
    assert response.status_code == 200, response.content
    assert response.json()["items"] == []


def test_a_notes_cursor_at_the_largest_number_pages_on(viewer_client, mongo):
    add_note("note_000000000001", "one")
    cursor = _notes_cursor(2**63 - 1, "note_000000000000")
    response = viewer_client.get(f"/api/notes?sort=access_count&direction=asc&cursor={cursor}")
    assert response.status_code == 200, response.content


def test_a_graph_cursor_holding_a_huge_number_is_a_400_naming_it(viewer_client):
    cursor = base64.urlsafe_b64encode(json.dumps([10**30, "4:x:1"]).encode()).decode()
    response = viewer_client.get(f"/api/graph/entities?cursor={cursor}")
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "cursor"


def test_dates_are_answered_with_their_offset(viewer_client, mongo):
    add_note("note_000000000001", "a note")
    note = viewer_client.get("/api/notes/note_000000000001").json()
    assert note["updated_at"].endswith(("Z", "+00:00"))
    assert note["created_at"].endswith(("Z", "+00:00"))


def test_a_scan_when_the_broker_is_down_is_a_503_and_the_run_says_why(admin_client_):
    response = admin_client_.post("/api/duplicates/scan", {}, content_type="application/json")
    assert response.status_code == 503
    assert response.json()["error"]["store"] == "broker"
    run = Run.objects.get()
    assert run.status == Run.FAILED
    assert "broker" in run.error


def test_a_revoked_token_on_a_write_is_told_401_not_a_csrf_failure(viewer):
    token, raw = api_token_create(user=viewer, name="script")
    api_token_revoke(token_id=token.pk)
    response = Client(enforce_csrf_checks=True).post(
        "/api/notes/search",
        {"query": "lumen"},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {raw}",
    )
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthenticated"


def test_a_logged_in_write_without_the_csrf_token_is_still_refused(viewer):
    client = Client(enforce_csrf_checks=True)
    client.force_login(viewer)
    response = client.post("/api/notes/search", {"query": "x"}, content_type="application/json")
    assert response.status_code == 403


def test_a_path_under_api_that_is_no_route_answers_json(viewer_client):
    response = viewer_client.get("/api/no/such/route")
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json()["error"]["code"] == "not_found"


def test_a_body_over_the_size_limit_answers_413_json(viewer_client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = viewer_client.post(
        "/api/notes/search", {"query": "x" * 2000}, content_type="application/json"
    )
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "too_large"


def test_a_query_with_too_many_fields_answers_400_json(viewer_client, settings):
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 10
    query = "&".join(f"archive=a{i}" for i in range(20))
    response = viewer_client.delete(f"/api/facts/64b0000000000000000000de?{query}")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "bad_request"


def test_a_crash_inside_the_api_answers_the_json_error(db):
    request = RequestFactory().get("/api/notes")
    response = api.on_exception(request, RuntimeError("a bug"))
    assert response.status_code == 500
    assert json.loads(response.content)["error"]["code"] == "internal"


def test_a_crash_outside_any_route_under_api_answers_json_and_pages_keep_html(db):
    api_500 = error_500(RequestFactory().get("/api/notes"))
    assert api_500.status_code == 500
    assert json.loads(api_500.content)["error"]["code"] == "internal"
    page_500 = error_500(RequestFactory().get("/notes/"))
    assert page_500["Content-Type"].startswith("text/html")


def test_revoking_a_token_that_does_not_exist_is_a_404(admin_client_):
    assert admin_client_.post("/tokens/999999/revoke/").status_code == 404
