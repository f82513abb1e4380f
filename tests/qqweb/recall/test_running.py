"""Running the memory tests (qqweb/recall/running.py): every pin asked of the agent's own
retrieval, with the reason a pin fails, every run stored."""

from __future__ import annotations

import pytest

from memory_app.notes.selectors.recall import CORE_PREFIX
from memory_app.notes.services.merging import pair_merge
from memory_app.notes.services.notes import note_archive
from memory_app.notes.stores import core_notes
from qqweb.lib.actors import Actor
from qqweb.recall.models import Pin, TestRun
from qqweb.recall.services import memory_tests_run, pin_create, pin_delete
from tests.helpers import json_server, plant_note
from tests.services import free_port

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("mongo", "memory_dir")]

CURATOR = Actor("user", "curator", role="curator")
LUMEN = "Lumen stores its notes in MongoDB with embeddings"


def _run() -> TestRun:
    return memory_tests_run(actor=CURATOR, trigger=TestRun.PAGE)


def _pin(item_id: str, query: str = LUMEN) -> Pin:
    return pin_create(actor=CURATOR, query=query, item_id=item_id)


def test_a_recalled_note_passes_at_its_rank_and_the_run_is_stored():
    plant_note("note_lumen00001", content=LUMEN)
    _pin("note_lumen00001")
    run = _run()
    result = run.results.get()
    assert result.passed and result.rank == 1 and result.reason == ""
    assert result.score == pytest.approx(1.0, abs=1e-3)
    assert (run.total, run.passed, run.failed) == (1, 1, 0)
    assert run.recall_at_k == 1.0 and run.mrr == 1.0
    assert run.per_source["notes"]["k"] == 10 and run.per_source["notes"]["pins"] == 1
    assert run.trigger == "page" and run.actor == "user:curator" and run.finished_at
    assert TestRun.objects.count() == 1


def test_every_run_is_kept_as_history():
    plant_note("note_lumen00001", content=LUMEN)
    _pin("note_lumen00001")
    _run()
    _run()
    assert TestRun.objects.count() == 2


def test_a_core_note_passes_at_rank_one_whatever_the_question():
    core_notes().add_core("The user is called Ada", "Identity")
    _pin(CORE_PREFIX + "The user is called Ada", query="something else entirely")
    result = _run().results.get()
    assert result.passed and result.rank == 1 and result.score is None


def test_an_archived_note_fails_saying_when_and_why_it_was_archived():
    plant_note("note_lumen00001", content=LUMEN)
    _pin("note_lumen00001")
    note_archive(actor=CURATOR, note_id="note_lumen00001", reason="outdated")
    run = _run()
    result = run.results.get()
    assert not result.passed and result.rank is None
    assert result.reason.startswith("archived on ") and result.reason.endswith(": outdated")
    assert run.recall_at_k == 0.0 and run.mrr == 0.0 and run.failed == 1


def test_a_merged_note_passes_through_the_note_that_holds_its_text_now():
    plant_note("note_lumen00001", content=LUMEN, importance=0.9)
    plant_note("note_lumen00002", content=LUMEN + " too", importance=0.3)
    _pin("note_lumen00002")
    pair_merge(
        actor=CURATOR,
        note_a_id="note_lumen00001",
        note_b_id="note_lumen00002",
        primary_id="note_lumen00001",
    )
    result = _run().results.get()
    assert result.passed and result.rank == 1
    assert result.recalled_as == "note_lumen00001"


def test_a_note_that_scores_below_the_citation_threshold_fails_with_its_score(settings):
    plant_note("note_tea0000001", content="Ada prefers tea in the morning")
    _pin("note_tea0000001", query=LUMEN)
    result = _run().results.get()
    assert not result.passed
    assert "below the citation threshold 0.3" in result.reason
    assert result.reason.startswith(f"scores {result.score:.2f}")


def test_a_note_whose_importance_decayed_fails_saying_so():
    plant_note("note_lumen00001", content=LUMEN, importance=0.21, days_old=400)
    _pin("note_lumen00001")
    result = _run().results.get()
    assert not result.passed
    assert "its effective importance" in result.reason and "is below 0.2" in result.reason


def test_a_note_outranked_by_ten_closer_ones_fails_naming_what_outranked_it():
    for n in range(11):
        plant_note(f"note_close{n:06d}", content=f"{LUMEN} number{n}")
    plant_note("note_far0000001", content=f"{LUMEN} and a long tail of other words here")
    _pin("note_far0000001")
    result = _run().results.get()
    assert not result.passed
    assert "ranked 12th, past the agent's 10; outranked by note_close" in result.reason
    assert "and 7 more" in result.reason
    assert len(result.outranked_by) == 10
    assert {o["id"] for o in result.outranked_by} <= {f"note_close{n:06d}" for n in range(11)}


def test_an_embedding_service_that_is_down_fails_the_pin_with_the_reason(settings):
    plant_note("note_lumen00001", content=LUMEN)
    _pin("note_lumen00001")
    settings.QQ_EMBEDDING_BACKEND = "openai"
    settings.TEI_URL = f"http://127.0.0.1:{free_port()}/v1"
    run = _run()
    result = run.results.get()
    assert not result.passed
    assert result.reason.startswith("the agent's retrieval failed: ")
    assert "unavailable" in result.reason
    assert run.failed == 1


def test_a_retrieval_that_fails_is_asked_once_a_run_and_fails_every_pin_of_its_memory(settings):
    """A store or model that is down is not asked again for every pin (each ask would wait
    its timeout): the first failure fails the memory's other pins with the same reason."""
    seen: list[dict[str, object]] = []

    def refuse(path: str, body: dict[str, object]) -> dict[str, object]:
        raise ConnectionAbortedError("the embedding service is down")

    with json_server(refuse, seen) as url:
        settings.QQ_EMBEDDING_BACKEND = "openai"
        settings.TEI_URL = url
        for i in range(3):
            Pin.objects.create(query=f"question {i}", item_id=f"note_{i:012d}", created_by="t")
        run = _run()
    reasons = {r.reason for r in run.results.all()}
    assert run.failed == 3 and len(reasons) == 1
    assert reasons.pop().startswith("the agent's retrieval failed: ")
    asked = {str(r["body"]) for r in seen}
    assert asked == {str(seen[0]["body"])}  # only the first question was sent


def test_an_unpinned_pin_keeps_its_past_results():
    plant_note("note_lumen00001", content=LUMEN)
    pin = _pin("note_lumen00001")
    run = _run()
    pin_delete(actor=CURATOR, pin_id=pin.pk)
    result = run.results.get()
    assert result.pin is None and result.query == LUMEN and result.item_id == "note_lumen00001"


def test_a_run_with_no_pins_loses_nothing():
    run = _run()
    assert (run.total, run.recall_at_k, run.mrr, run.per_source) == (0, 1.0, 1.0, {})
