"""The notes JSON API: behaviour, roles and bad input against the real stores."""

import json

import pytest
from django.test import Client

from memory_app.notes.stores import notes_store
from qqweb.audit.models import AuditEvent
from tests.helpers import add_note as add

pytestmark = pytest.mark.usefixtures("mongo", "memory_dir")


@pytest.fixture
def notes():
    add("note_0000000000a1", "Lumen uses MongoDB for vector search", importance=0.9)
    add("note_0000000000a2", "Priya reviews pull requests on Fridays", "People & Entities", 0.4)
    add("note_0000000000a3", "tidepool runs k3s on three Raspberry Pis", importance=0.2)


def patch(client, url, body):
    return client.patch(url, json.dumps(body), content_type="application/json")


def post(client, url, body):
    return client.post(url, json.dumps(body), content_type="application/json")


def test_list_filters_sorts_and_pages(viewer_client, notes):
    first = viewer_client.get("/api/notes?sort=importance&direction=desc&limit=2").json()
    assert [n["note_id"] for n in first["items"]] == ["note_0000000000a1", "note_0000000000a2"]
    assert "embedding" not in first["items"][0]
    rest = viewer_client.get(
        f"/api/notes?sort=importance&direction=desc&limit=2&cursor={first['next_cursor']}"
    ).json()
    assert [n["note_id"] for n in rest["items"]] == ["note_0000000000a3"]
    assert rest["next_cursor"] is None
    people = viewer_client.get("/api/notes?section=People %26 Entities").json()["items"]
    assert [n["note_id"] for n in people] == ["note_0000000000a2"]


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("section=Misc", "section"),
        ("min_importance=2", "min_importance"),
        ("sort=content", "sort"),
        ("cursor=xyz", "cursor"),
        ("limit=0", "limit"),
    ],
)
def test_bad_list_parameters_are_a_4xx_naming_the_field(viewer_client, notes, query, field):
    response = viewer_client.get(f"/api/notes?{query}")
    assert 400 <= response.status_code < 500
    error = response.json()["error"]
    assert field in (error.get("field", "") + " " + " ".join(error.get("fields", [])))


def test_get_a_note_and_404_for_a_missing_one(viewer_client, notes):
    note = viewer_client.get("/api/notes/note_0000000000a1").json()
    assert note["content"] == "Lumen uses MongoDB for vector search"
    assert note["embedding_dimension"] == 384
    missing = viewer_client.get("/api/notes/note_0000000000zz")
    assert missing.status_code == 404 and missing.json()["error"]["note_id"] == "note_0000000000zz"


def test_patch_edits_and_a_stale_patch_is_a_409_that_changes_nothing(curator_client, notes):
    note = curator_client.get("/api/notes/note_0000000000a1").json()
    edited = patch(
        curator_client,
        "/api/notes/note_0000000000a1",
        {"expected_updated_at": note["updated_at"], "importance": 0.7},
    )
    assert edited.status_code == 200 and edited.json()["importance"] == 0.7
    stale = patch(
        curator_client,
        "/api/notes/note_0000000000a1",
        {"expected_updated_at": note["updated_at"], "content": "changed"},
    )
    assert stale.status_code == 409 and stale.json()["error"]["code"] == "stale"
    assert notes_store().get_full_note("note_0000000000a1")["content"].startswith("Lumen uses")


def test_patch_with_a_bad_section_is_a_400_and_writes_nothing(curator_client, notes):
    note = curator_client.get("/api/notes/note_0000000000a1").json()
    response = patch(
        curator_client,
        "/api/notes/note_0000000000a1",
        {"expected_updated_at": note["updated_at"], "section": "Misc"},
    )
    assert response.status_code == 400 and response.json()["error"]["field"] == "section"
    assert AuditEvent.objects.count() == 0


def test_a_viewer_may_not_edit_or_archive(viewer_client, notes):
    note = viewer_client.get("/api/notes/note_0000000000a1").json()
    assert (
        patch(
            viewer_client,
            "/api/notes/note_0000000000a1",
            {"expected_updated_at": note["updated_at"], "importance": 0.1},
        ).status_code
        == 403
    )
    assert viewer_client.delete("/api/notes/note_0000000000a1").status_code == 403
    assert notes_store().count() == 3


@pytest.mark.django_db
def test_anonymous_requests_are_401(notes):
    assert Client().get("/api/notes").status_code == 401


def test_delete_archives_and_the_audit_undo_brings_it_back(curator_client, notes):
    line = curator_client.delete("/api/notes/note_0000000000a2").json()
    assert line["reason"] == "manual"
    assert notes_store().get_full_note("note_0000000000a2") is None
    event = curator_client.get("/api/audit?action=note.archive").json()[0]
    assert event["actor"] == "user:cora-curator" and event["target_id"] == "note_0000000000a2"
    undone = post(curator_client, f"/api/audit/{event['id']}/undo", {})
    assert undone.status_code == 200 and undone.json()["action"] == "undo.note.archive"
    assert notes_store().get_full_note("note_0000000000a2") is not None
    again = post(curator_client, f"/api/audit/{event['id']}/undo", {})
    assert again.status_code == 409 and "undone already" in again.json()["error"]["message"]


def test_search_ranks_by_similarity(viewer_client, notes):
    body = post(viewer_client, "/api/notes/search", {"query": "MongoDB vector search"}).json()
    assert body["results"][0]["note_id"] == "note_0000000000a1"
    assert body["results"][0]["score"] > body["results"][-1]["score"]
    assert body["model"] == "hashing-384"


def test_search_says_plainly_when_the_dimension_does_not_match(viewer_client, settings, notes):
    settings.QQ_EMBEDDING_DIMENSION = 1024
    response = post(viewer_client, "/api/notes/search", {"query": "MongoDB"})
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "dimension_mismatch"
    assert "1024 dimensions but the stored vectors have 384" in response.json()["error"]["message"]


def test_histogram_counts_what_the_database_holds(viewer_client, notes):
    body = viewer_client.get("/api/notes/histogram?bins=5").json()
    assert body["counts"] == [0, 1, 1, 0, 1]
    assert body["edges"] == [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]


def test_bulk_by_filter_sets_importance_under_one_batch(curator_client, notes):
    response = post(
        curator_client,
        "/api/notes/bulk",
        {"action": "set_importance", "importance": 0.6, "filter": {"section": "Key Topics"}},
    )
    body = response.json()
    assert sorted(body["done"]) == ["note_0000000000a1", "note_0000000000a3"]
    assert {e.batch_id.hex for e in AuditEvent.objects.all()} == {body["batch_id"].replace("-", "")}
    assert notes_store().get_full_note("note_0000000000a2")["importance"] == 0.4


def test_bulk_archive_of_ids_reports_missing_ones(curator_client, notes):
    body = post(
        curator_client,
        "/api/notes/bulk",
        {"action": "archive", "note_ids": ["note_0000000000a1", "note_0000000000zz"]},
    ).json()
    assert body["done"] == ["note_0000000000a1"]
    assert body["failed"][0]["note_id"] == "note_0000000000zz"


def test_bulk_with_an_unknown_action_is_refused(curator_client, notes):
    response = post(curator_client, "/api/notes/bulk", {"action": "delete", "note_ids": []})
    assert response.status_code == 400 and response.json()["error"]["field"] == "action"


@pytest.mark.parametrize(
    ("url", "body"),
    [
        ("/api/notes", {"content": "Lumen ships on Fridays", "importance": False}),
        ("/api/notes/note_0000000000a1", {"importance": True}),
    ],
)
def test_true_or_false_for_an_importance_is_a_422_that_writes_nothing(
    curator_client, notes, url, body
):
    before = notes_store().count()
    if url == "/api/notes":
        response = post(curator_client, url, body)
    else:
        note = curator_client.get(url).json()
        response = patch(curator_client, url, {**body, "expected_updated_at": note["updated_at"]})
    assert response.status_code == 422
    assert "importance" in json.dumps(response.json())
    assert notes_store().count() == before
    assert notes_store().get_full_note("note_0000000000a1")["importance"] == 0.9


def test_a_number_in_a_query_string_is_still_read(viewer_client, notes):
    items = viewer_client.get("/api/notes?min_importance=0.5").json()["items"]
    assert [n["note_id"] for n in items] == ["note_0000000000a1"]
