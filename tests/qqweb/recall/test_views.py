"""The Memory tests page (qqweb/recall/views.py), "Pin this" on the retrieval preview and
"Pin a question" on a note's page."""

from __future__ import annotations

import pytest
from django.urls import reverse

from memory_app.notes.services.notes import note_archive
from memory_app.notes.stores import archive_manager, core_notes, notes_store
from qqweb.audit.models import AuditEvent
from qqweb.jobs.models import Run
from qqweb.jobs.runner import job_run
from qqweb.lib.actors import Actor
from qqweb.recall.models import Pin, TestRun
from qqweb.recall.services import memory_tests_run, pin_create
from tests.helpers import agent_archive_line, plant_note

pytestmark = pytest.mark.usefixtures("stores")

LUMEN = "Lumen stores its notes in MongoDB with embeddings"
CURATOR = Actor("user", "curator", role="curator")
PAGE = reverse("recall:memory_tests")


def _page(client, **kwargs) -> str:
    response = client.get(PAGE, **kwargs)
    assert response.status_code == 200
    return response.content.decode()


def test_the_empty_page_says_what_a_pin_is_and_how_to_add_one(viewer_client):
    page = _page(viewer_client)
    assert 'id="memory-tests-empty"' in page
    assert "A pin is a question with the note the agent must recall" in page
    assert "Pin this" in page and "Pinning needs the curator role" in page
    assert 'id="pin-form"' not in page  # a viewer sees, does not pin


def test_the_nav_lists_memory_tests_after_retrieval(viewer_client):
    page = _page(viewer_client)
    assert (
        page.index(">Retrieval</a>") < page.index(">Memory tests</a>") < page.index(">Review</a>")
    )


def test_the_retrieval_preview_offers_pin_this_per_cited_and_core_note_to_curators(
    curator_client, viewer_client
):
    plant_note("note_lumen00001", content=LUMEN)
    core_notes().add_core("The user is called Ada", "Identity")
    url = reverse("memory_app:retrieval") + "?message=" + LUMEN.replace(" ", "+")
    page = curator_client.get(url).content.decode()
    assert page.count(">Pin this</button>") == 2
    assert 'name="item_id" value="note_lumen00001"' in page
    assert 'name="item_id" value="core:The user is called Ada"' in page
    assert ">Pin this</button>" not in viewer_client.get(url).content.decode()


def test_pin_this_pins_the_message_to_the_note_and_offers_undo(curator_client):
    plant_note("note_lumen00001", content=LUMEN)
    back = reverse("memory_app:retrieval") + "?message=Lumen"
    response = curator_client.post(
        reverse("recall:pin"),
        {"query": LUMEN, "item_id": "note_lumen00001", "source": "notes", "next": back},
        follow=True,
    )
    assert response.redirect_chain[-1][0] == back
    page = response.content.decode()
    assert "Pinned: " in page and 'id="message-undo"' in page
    pin = Pin.objects.get()
    assert (pin.query, pin.item_id, pin.created_by) == (
        LUMEN,
        "note_lumen00001",
        "user:cora-curator",
    )
    event = AuditEvent.objects.get(action="recall.pin")
    assert f'data-undo-event="{event.pk}"' in page


def test_a_viewer_cannot_pin_run_import_or_unpin(viewer_client):
    assert viewer_client.post(reverse("recall:pin"), {"query": "q"}).status_code == 403
    assert viewer_client.post(reverse("recall:run")).status_code == 403
    assert viewer_client.post(reverse("recall:import"), {"lines": "{}"}).status_code == 403
    assert viewer_client.post(reverse("recall:unpin", args=[1])).status_code == 403
    assert viewer_client.post(reverse("recall:run_cancel", args=[1])).status_code == 403
    assert not TestRun.objects.exists() and not Run.objects.exists()


def test_pinning_a_note_that_does_not_exist_is_refused_naming_it(curator_client):
    response = curator_client.post(
        reverse("recall:pin"), {"query": "q", "item_id": "note_gone0000001"}
    )
    assert response.status_code == 400
    assert "note_gone0000001" in response.content.decode()
    assert not Pin.objects.exists()


def test_run_now_starts_a_job_whose_progress_the_fragment_polls_then_shows_the_results(
    curator_client,
):
    plant_note("note_lumen00001", content=LUMEN)
    pin_create(actor=CURATOR, query=LUMEN, item_id="note_lumen00001")
    response = curator_client.post(reverse("recall:run"), HTTP_HX_REQUEST="true")
    fragment = response.content.decode()
    assert response.status_code == 200
    assert fragment.lstrip().startswith('<div id="memory-tests-results" hx-get=')
    assert 'hx-trigger="every 1s"' in fragment and "<h1>" not in fragment
    assert "Running the memory tests" in fragment and 'id="memory-tests-run"' not in fragment
    job = Run.objects.get(kind="memory_tests")
    assert job.status == "queued" and job.started_by == "user:cora-curator"
    assert not TestRun.objects.exists()  # nothing runs in the request
    job_run(run=job)  # what the worker does with it
    polled = curator_client.get(PAGE, HTTP_HX_REQUEST="true").content.decode()
    assert "hx-trigger" not in polled and "Running the memory tests" not in polled
    assert "all 1 pass" in polled and 'data-status="pass"' in polled
    stored = TestRun.objects.get()
    assert stored.trigger == "page" and stored.job_run == job and stored.actor == job.started_by


def test_run_now_while_a_run_is_open_shows_that_run_and_starts_no_other(curator_client):
    plant_note("note_lumen00001", content=LUMEN)
    pin_create(actor=CURATOR, query=LUMEN, item_id="note_lumen00001")
    curator_client.post(reverse("recall:run"), HTTP_HX_REQUEST="true")
    curator_client.post(reverse("recall:run"), HTTP_HX_REQUEST="true")
    assert Run.objects.filter(kind="memory_tests").count() == 1


def test_a_cancelled_run_stores_nothing_and_the_page_says_so(curator_client):
    plant_note("note_lumen00001", content=LUMEN)
    pin_create(actor=CURATOR, query=LUMEN, item_id="note_lumen00001")
    curator_client.post(reverse("recall:run"), HTTP_HX_REQUEST="true")
    job = Run.objects.get(kind="memory_tests")
    response = curator_client.post(reverse("recall:run_cancel", args=[job.pk]), follow=True)
    page = response.content.decode()
    assert "Memory tests run cancelled: it stores nothing." in page
    assert f'The last run (<a href="/maintenance/runs/{job.pk}/">#{job.pk}</a>) cancelled' in page
    assert 'id="memory-tests-run"' in page  # it may be run again
    job_run(run=Run.objects.get(pk=job.pk))  # its task reaches a worker later: does nothing
    assert not TestRun.objects.exists()


def test_the_page_shows_a_failing_pin_with_the_reason_and_the_measures(viewer_client):
    plant_note("note_lumen00001", content=LUMEN)
    pin_create(actor=CURATOR, query=LUMEN, item_id="note_lumen00001")
    memory_tests_run(actor=CURATOR, trigger=TestRun.PAGE)
    note_archive(actor=CURATOR, note_id="note_lumen00001", reason="outdated")
    memory_tests_run(actor=CURATOR, trigger=TestRun.COMMAND)
    page = _page(viewer_client)
    assert "1 of 1 fail" in page and 'data-status="fail"' in page
    assert ": outdated" in page and "archived on " in page
    assert '<tr data-source="notes"><td>Notes (qq agent)</td><td class="num">10</td>' in page
    assert 'class="chart history-chart"' in page  # two runs: a history
    assert page.count("<circle ") == 4  # recall@k and MRR, one dot a run


def test_a_plain_run_now_redirects_to_the_page_showing_the_run_started(curator_client):
    plant_note("note_lumen00001", content=LUMEN)
    pin_create(actor=CURATOR, query=LUMEN, item_id="note_lumen00001")
    response = curator_client.post(reverse("recall:run"), follow=True)
    job = Run.objects.get(kind="memory_tests")
    page = response.content.decode()
    assert f"Memory tests run #{job.pk} started: its results show here." in page
    assert f'data-job-id="{job.pk}" data-job-status="queued"' in page


def test_unpin_offers_undo_and_undo_brings_the_pin_back(curator_client):
    plant_note("note_lumen00001", content=LUMEN)
    pin = pin_create(actor=CURATOR, query=LUMEN, item_id="note_lumen00001")
    response = curator_client.post(reverse("recall:unpin", args=[pin.pk]), follow=True)
    page = response.content.decode()
    assert "Unpinned." in page and not Pin.objects.exists()
    event = AuditEvent.objects.get(action="recall.unpin")
    assert f'data-undo-event="{event.pk}"' in page
    curator_client.post(reverse("memory_app:audit_undo", args=[event.pk]))
    assert Pin.objects.get().pk == pin.pk


def test_an_import_pins_every_line_and_offers_one_undo(curator_client):
    plant_note("note_lumen00001", content=LUMEN)
    plant_note("note_tea0000001", content="Ada prefers tea in the morning")
    lines = (
        '{"query": "Where are the notes?", "item_id": "note_lumen00001"}\n'
        '{"query": "What does Ada drink?", "item_id": "note_tea0000001", "comment": "c"}\n'
    )
    response = curator_client.post(reverse("recall:import"), {"lines": lines}, follow=True)
    page = response.content.decode()
    assert "Imported 2 pins." in page and "data-undo-batch=" in page
    assert Pin.objects.count() == 2


def test_an_imported_file_with_a_bad_line_is_refused_naming_the_line_and_field(curator_client):
    from django.core.files.uploadedfile import SimpleUploadedFile

    plant_note("note_lumen00001", content=LUMEN)
    text = b'{"query": "q", "item_id": "note_lumen00001"}\n{"query": 3, "item_id": "x"}\n'
    upload = SimpleUploadedFile("pins.jsonl", text, content_type="application/x-ndjson")
    response = curator_client.post(reverse("recall:import"), {"file": upload})
    assert response.status_code == 400
    assert "line 2: query: must be a text" in response.content.decode()
    assert not Pin.objects.exists()


def test_a_notes_page_lists_its_pinned_questions_and_pins_one_more(curator_client):
    plant_note("note_lumen00001", content=LUMEN)
    pin_create(actor=CURATOR, query="Where are the notes?", item_id="note_lumen00001")
    url = reverse("memory_app:note_detail", args=["note_lumen00001"])
    page = curator_client.get(url).content.decode()
    assert "“Where are the notes?”" in page and 'id="note-pin-form"' in page
    response = curator_client.post(
        reverse("recall:pin"),
        {"query": "How is Lumen stored?", "item_id": "note_lumen00001", "next": url},
    )
    assert response["Location"] == url
    assert Pin.objects.filter(query="How is Lumen stored?").exists()


def test_a_run_page_keeps_each_result_as_it_was(viewer_client):
    plant_note("note_lumen00001", content=LUMEN)
    pin_create(actor=CURATOR, query=LUMEN, item_id="note_lumen00001")
    run = memory_tests_run(actor=CURATOR, trigger=TestRun.PAGE)
    Pin.objects.all().delete()
    page = viewer_client.get(reverse("recall:run_detail", args=[run.pk])).content.decode()
    assert 'data-status="pass"' in page and "(unpinned since)" in page


def test_a_note_pinned_for_the_message_is_marked_pinned_on_the_preview(curator_client):
    plant_note("note_lumen00001", content=LUMEN)
    core_notes().add_core("The user is called Ada", "Identity")
    pin_create(actor=CURATOR, query=LUMEN, item_id="note_lumen00001")
    url = reverse("memory_app:retrieval") + "?message=" + LUMEN.replace(" ", "+")
    page = curator_client.get(url).content.decode()
    assert page.count(">Pin this</button>") == 1  # the core note's
    assert '<a class="pill up" href="/memory-tests/"' in page
    assert 'name="item_id" value="note_lumen00001"' not in page


def test_a_run_that_does_not_exist_is_a_404_naming_it(viewer_client):
    response = viewer_client.get(reverse("recall:run_detail", args=[987654]))
    assert response.status_code == 404
    assert "there is no memory tests run 987654" in response.content.decode()


@pytest.mark.parametrize(
    ("line", "words"),
    [
        (b"[" * 100_000 + b"]" * 100_000, "line 2: nests too deeply to be read"),
        (b'{"query": ' + b"9" * 5000 + b', "item_id": "x"}', "line 2: query: must be a text"),
    ],
)
def test_an_uploaded_line_no_pin_can_hold_is_refused_naming_it(curator_client, line, words):
    from django.core.files.uploadedfile import SimpleUploadedFile

    plant_note("note_lumen00001", content=LUMEN)
    text = b'{"query": "q", "item_id": "note_lumen00001"}\n' + line + b"\n"
    upload = SimpleUploadedFile("pins.jsonl", text, content_type="application/x-ndjson")
    response = curator_client.post(reverse("recall:import"), {"file": upload})
    assert response.status_code == 400
    assert words in response.content.decode()
    assert not Pin.objects.exists()


def test_the_pin_form_refuses_a_question_holding_a_nul(curator_client):
    plant_note("note_lumen00001", content=LUMEN)
    response = curator_client.post(
        reverse("recall:pin"), {"query": "Where\x00", "item_id": "note_lumen00001"}
    )
    assert response.status_code == 400
    assert "NUL" in response.content.decode()
    assert not Pin.objects.exists()


def test_a_pin_recalled_through_a_merge_survivor_names_the_survivor_by_its_text(
    viewer_client,
):
    """The memory tests page and the run's page read in words: the note a pin is
    recalled through is named by its text (its id the link's target, or a small code)."""
    plant_note("note_lumen000002", content=LUMEN, importance=0.8)
    plant_note("note_lumen000001", content=LUMEN + " too", importance=0.4)
    pin_create(actor=CURATOR, query=LUMEN, item_id="note_lumen000001")
    notes_store().collection.delete_one({"note_id": "note_lumen000001"})
    reason = "Consolidated with note_lumen000002 (similarity: 0.95)"
    archive_manager().append_entries([agent_archive_line("note_lumen000001", 20, reason=reason)])
    run = memory_tests_run(actor=CURATOR, trigger=TestRun.PAGE)
    assert run.results.get().recalled_as == "note_lumen000002"

    page = _page(viewer_client)
    assert (
        'recalled through <a href="/notes/note_lumen000002/" title="note_lumen000002">'
        f"{LUMEN}</a>" in page
    )
    run_page = viewer_client.get(reverse("recall:run_detail", args=[run.pk])).content.decode()
    assert f"recalled through {LUMEN} <small" in run_page
