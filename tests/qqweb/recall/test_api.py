"""The memory tests over the API (qqweb/recall/api.py)."""

from __future__ import annotations

import json

import pytest

from memory_app.notes.services.notes import note_archive
from qqweb.audit.models import AuditEvent
from qqweb.jobs.models import Run
from qqweb.jobs.runner import job_run
from qqweb.lib.actors import Actor
from qqweb.recall.models import Pin, TestRun
from qqweb.recall.services import pin_create
from tests.helpers import plant_note

pytestmark = pytest.mark.usefixtures("stores")

LUMEN = "Lumen stores its notes in MongoDB with embeddings"
CURATOR = Actor("user", "curator", role="curator")
BASE = "/api/memory-tests"


def _post(client, url: str, body: object):
    return client.post(url, json.dumps(body), content_type="application/json")


def test_a_curator_pins_and_the_pin_is_listed_not_run_yet(curator_client, viewer_client):
    plant_note("note_lumen00001", content=LUMEN)
    created = _post(curator_client, f"{BASE}/pins", {"query": LUMEN, "item_id": "note_lumen00001"})
    assert created.status_code == 201
    body = created.json()
    assert body["item_text"] == LUMEN and body["source"] == "notes" and body["latest"] is None
    listed = viewer_client.get(f"{BASE}/pins").json()
    assert [p["id"] for p in listed] == [body["id"]]


def test_pinning_an_item_the_memory_does_not_hold_is_a_400_naming_it(curator_client):
    response = _post(curator_client, f"{BASE}/pins", {"query": "q", "item_id": "note_gone0000001"})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["field"] == "item_id" and error["item_id"] == "note_gone0000001"
    assert "note_gone0000001" in error["message"]


def test_pinning_the_same_recall_twice_is_a_409(curator_client):
    plant_note("note_lumen00001", content=LUMEN)
    body = {"query": LUMEN, "item_id": "note_lumen00001"}
    assert _post(curator_client, f"{BASE}/pins", body).status_code == 201
    again = _post(curator_client, f"{BASE}/pins", body)
    assert again.status_code == 409 and again.json()["error"]["code"] == "already_pinned"


def test_a_viewer_may_list_but_not_pin_or_run(viewer_client):
    assert viewer_client.get(f"{BASE}/runs").status_code == 200
    assert _post(viewer_client, f"{BASE}/pins", {"query": "q", "item_id": "x"}).status_code == 403
    assert viewer_client.post(f"{BASE}/runs").status_code == 403


def test_a_run_answers_every_pin_with_its_reason_and_is_listed(curator_client):
    plant_note("note_lumen00001", content=LUMEN)
    plant_note("note_tea0000001", content="Ada prefers tea in the morning")
    pin_create(actor=CURATOR, query=LUMEN, item_id="note_lumen00001")
    pin_create(actor=CURATOR, query="What does Ada drink?", item_id="note_tea0000001")
    note_archive(actor=CURATOR, note_id="note_tea0000001", reason="outdated")
    response = curator_client.post(f"{BASE}/runs")
    assert response.status_code == 202
    job = response.json()
    assert (job["status"], job["test_run"], job["started_by"]) == (
        "queued",
        None,
        "user:cora-curator",
    )
    assert job["url"] == f"/maintenance/runs/{job['id']}/"
    assert not TestRun.objects.exists()  # nothing ran in the request
    job_run(run=Run.objects.get(pk=job["id"]))  # what the worker does with it
    polled = curator_client.get(job["poll"]).json()
    assert polled["status"] == "done" and polled["processed"] == polled["total"] == 2
    run = curator_client.get(f"{BASE}/runs/{polled['test_run']}").json()
    assert (run["total"], run["passed"], run["failed"], run["trigger"]) == (2, 1, 1, "api")
    assert run["sources"]["notes"]["recall_at_k"] == 0.5
    failed = next(p for p in run["pins"] if not p["passed"])
    assert failed["item_id"] == "note_tea0000001" and failed["reason"].endswith(": outdated")
    listed = curator_client.get(f"{BASE}/runs").json()
    assert [r["id"] for r in listed] == [run["id"]] and "pins" not in listed[0]
    one = curator_client.get(f"{BASE}/runs/{run['id']}").json()
    assert len(one["pins"]) == 2 and one["started_at"].endswith(("Z", "+00:00"))
    pins = curator_client.get(f"{BASE}/pins").json()
    assert pins[0]["latest"]["passed"] is False  # failing first
    assert pins[1]["latest"] == {
        "run_id": run["id"],
        "passed": True,
        "rank": 1,
        "score": pytest.approx(1.0, abs=1e-3),
        "reason": "",
        "recalled_as": "",
    }


def test_a_run_that_does_not_exist_is_a_404(viewer_client):
    response = viewer_client.get(f"{BASE}/runs/987654")
    assert response.status_code == 404 and response.json()["error"]["run_id"] == 987654
    assert viewer_client.get(f"{BASE}/jobs/987654").status_code == 404


def test_a_curator_cancels_a_queued_run_and_nothing_is_stored(curator_client, viewer_client):
    job = curator_client.post(f"{BASE}/runs").json()
    assert viewer_client.post(f"{BASE}/jobs/{job['id']}/cancel").status_code == 403
    cancelled = curator_client.post(f"{BASE}/jobs/{job['id']}/cancel")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    again = curator_client.post(f"{BASE}/jobs/{job['id']}/cancel")
    assert again.status_code == 400 and "nothing to cancel" in again.json()["error"]["message"]
    job_run(run=Run.objects.get(pk=job["id"]))  # its task reaches a worker later
    assert not TestRun.objects.exists()


def test_unpinning_answers_204_and_is_undoable(curator_client):
    plant_note("note_lumen00001", content=LUMEN)
    pin = pin_create(actor=CURATOR, query=LUMEN, item_id="note_lumen00001")
    assert curator_client.delete(f"{BASE}/pins/{pin.pk}").status_code == 204
    assert not Pin.objects.exists()
    assert curator_client.delete(f"{BASE}/pins/{pin.pk}").status_code == 404
    event = AuditEvent.objects.get(action="recall.unpin")
    assert curator_client.post(f"/api/audit/{event.pk}/undo").status_code == 200
    assert Pin.objects.get().pk == pin.pk


def test_an_import_answers_the_pins_and_the_batch_and_a_bad_line_is_a_400(curator_client):
    plant_note("note_lumen00001", content=LUMEN)
    good = json.dumps({"query": LUMEN, "item_id": "note_lumen00001"})
    bad = _post(curator_client, f"{BASE}/imports", {"jsonl": good + "\n{oops\n"})
    assert bad.status_code == 400
    assert bad.json()["error"]["line"] == 2 and bad.json()["error"]["field"] == "line"
    assert not Pin.objects.exists()
    response = _post(curator_client, f"{BASE}/imports", {"jsonl": good + "\n"})
    assert response.status_code == 201
    body = response.json()
    assert len(body["created"]) == 1 and body["already"] == 0
    assert AuditEvent.objects.get(action="recall.pin").batch_id.hex == body["batch_id"].replace(
        "-", ""
    )
    assert not TestRun.objects.exists()


@pytest.mark.parametrize(
    ("line", "field", "words"),
    [
        ("[" * 100_000 + "]" * 100_000, "line", "nests too deeply to be read"),
        ('{"query": ' + "9" * 5000 + ', "item_id": "note_lumen00001"}', "query", "not a number"),
        ('{"query": "q\\u0000", "item_id": "note_lumen00001"}', "query", "a NUL character"),
    ],
)
def test_an_import_line_no_pin_can_hold_is_a_400_naming_it(curator_client, line, field, words):
    plant_note("note_lumen00001", content=LUMEN)
    good = json.dumps({"query": LUMEN, "item_id": "note_lumen00001"})
    response = _post(curator_client, f"{BASE}/imports", {"jsonl": f"{good}\n{line}\n"})
    assert response.status_code == 400, response.content[:300]
    error = response.json()["error"]
    assert (error["line"], error["field"]) == (2, field) and words in error["message"]
    assert [(p["line"], p["field"]) for p in error["lines"]] == [(2, field)]
    assert not Pin.objects.exists()


def test_an_import_keeps_a_raw_line_separator_inside_a_question(curator_client):
    plant_note("note_lumen00001", content=LUMEN)
    line = '{"query": "Where\u2028are\x85the notes?", "item_id": "note_lumen00001"}'
    response = _post(curator_client, f"{BASE}/imports", {"jsonl": line})
    assert response.status_code == 201, response.content
    assert Pin.objects.get().query == "Where\u2028are\x85the notes?"


def test_a_pin_whose_question_holds_a_nul_is_a_400(curator_client):
    plant_note("note_lumen00001", content=LUMEN)
    response = _post(
        curator_client, f"{BASE}/pins", {"query": "q\x00", "item_id": "note_lumen00001"}
    )
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "query"
    assert "NUL" in response.json()["error"]["message"]
    assert not Pin.objects.exists()


def test_pinning_past_the_limit_of_a_memory_is_a_409(curator_client, settings):
    settings.QQ_MAX_PINS_PER_MEMORY = 1
    plant_note("note_lumen00001", content=LUMEN)
    first = {"query": "one", "item_id": "note_lumen00001"}
    assert _post(curator_client, f"{BASE}/pins", first).status_code == 201
    second = _post(curator_client, f"{BASE}/pins", {**first, "query": "two"})
    assert second.status_code == 409
    assert second.json()["error"]["code"] == "too_many_pins"
    assert second.json()["error"]["limit"] == 1
    lines = json.dumps({**first, "query": "three"})
    assert _post(curator_client, f"{BASE}/imports", {"jsonl": lines}).status_code == 409
    assert Pin.objects.count() == 1


def test_pinning_a_note_without_a_vector_is_a_400_saying_no_search_can_recall_it(
    curator_client,
):
    plant_note("note_novector01", content=LUMEN, embedding=[])
    response = _post(curator_client, f"{BASE}/pins", {"query": LUMEN, "item_id": "note_novector01"})
    assert response.status_code == 400
    error = response.json()["error"]
    assert (error["code"], error["field"]) == ("item_not_searchable", "item_id")
    assert "this note has no vector yet, so no search can recall it" in error["message"]
    assert not Pin.objects.exists()


def test_an_import_line_pinning_a_note_without_a_vector_is_refused_naming_it(curator_client):
    plant_note("note_lumen00001", content=LUMEN)
    plant_note("note_novector01", content="Ada drinks tea", embedding=[])
    lines = [
        json.dumps({"query": LUMEN, "item_id": "note_lumen00001"}),
        json.dumps({"query": "What does Ada drink?", "item_id": "note_novector01"}),
    ]
    response = _post(curator_client, f"{BASE}/imports", {"jsonl": "\n".join(lines)})
    assert response.status_code == 400
    error = response.json()["error"]
    assert [(p["line"], p["field"]) for p in error["lines"]] == [(2, "item_id")]
    assert "no vector yet, so no search can recall it" in error["lines"][0]["message"]
    assert not Pin.objects.exists()
