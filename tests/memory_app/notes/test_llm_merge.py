"""The LLM merge against a real OpenAI-compatible HTTP server on loopback, and its fallback."""

from collections.abc import Iterator
from typing import Any

import pytest

from memory_app.notes.lib import NoteDeduplicator
from memory_app.notes.lib.domain import Note
from memory_app.notes.stores import notes_store
from tests.helpers import json_server

A = Note.from_document(
    {
        "note_id": "note_0000000000a1",
        "content": "Lumen uses MongoDB",
        "importance": 0.7,
        "access_count": 1,
    }
)
B = Note.from_document(
    {
        "note_id": "note_0000000000a2",
        "content": "Lumen relies on MongoDB 8",
        "importance": 0.4,
        "access_count": 2,
    }
)
SEEN: list[dict[str, Any]] = []


def chat(path: str, body: dict[str, Any]) -> dict[str, Any]:
    return {
        "choices": [
            {"message": {"role": "assistant", "content": " Lumen stores its notes in MongoDB 8. "}}
        ]
    }


@pytest.fixture
def llm_url() -> Iterator[str]:
    SEEN.clear()
    with json_server(chat, SEEN) as url:
        yield url


def test_llm_merge_uses_the_models_text_for_the_primary(llm_url):
    dedup = NoteDeduplicator(notes_store(), llm_url=llm_url, llm_model="qwen3")
    merged = dedup.consolidate(A, B, use_llm=True)
    assert merged.content == "Lumen stores its notes in MongoDB 8."
    assert merged.note_id == "note_0000000000a1"
    assert merged.access_count == 3 and merged.importance == 0.75
    assert SEEN[0]["path"] == "/v1/chat/completions"
    assert "Lumen relies on MongoDB 8" in SEEN[0]["body"]["messages"][0]["content"]


def test_without_a_reachable_model_the_simple_merge_is_used():
    dedup = NoteDeduplicator(notes_store(), llm_url="http://127.0.0.1:9/v1", llm_model="x")
    merged = dedup.consolidate(A, B, use_llm=True)
    assert merged.content == "Lumen uses MongoDB"


# --- reachable from the review queue and auto-consolidation --------------------------------


@pytest.fixture
def queued_pair(db, stores):
    from memory_app.notes.services import duplicates_scan
    from qqweb.jobs.runs import run_create
    from qqweb.lib.actors import Actor
    from tests.helpers import add_note

    add_note(
        "note_0000000000a1", "Lumen uses MongoDB for vector search in production", importance=0.7
    )
    add_note(
        "note_0000000000a2",
        "Lumen uses MongoDB for vector search in production now",
        importance=0.4,
    )
    ada = Actor("user", "ada-admin")
    duplicates_scan(run=run_create(kind="dedup_scan", actor=ada, params={}), threshold=0.85)
    from memory_app.notes.models import ReviewPair

    return ReviewPair.objects.get()


def test_the_review_page_offers_the_llms_text_and_merging_uses_what_the_curator_kept(
    curator_client, settings, llm_url, queued_pair
):
    settings.QQ_LLM_URL, settings.QQ_LLM_MODEL = llm_url, "qwen3"
    page = curator_client.get("/review/").content.decode()
    assert "Suggest a merged text (LLM)" in page

    field = curator_client.get(
        f"/review/{queued_pair.pk}/llm/", HTTP_HX_REQUEST="true"
    ).content.decode()
    assert "Lumen stores its notes in MongoDB 8." in field and "suggested by qwen3" in field
    assert notes_store().get_full_note("note_0000000000a2") is not None  # nothing written yet

    curator_client.post(
        f"/review/{queued_pair.pk}/verdict/",
        {"verdict": "merge", "content": "Lumen stores its notes in MongoDB 8."},
    )
    merged = notes_store().get_full_note("note_0000000000a1")
    assert merged["content"] == "Lumen stores its notes in MongoDB 8."
    assert notes_store().get_full_note("note_0000000000a2") is None


def test_without_an_llm_the_page_offers_none_and_the_field_says_how_to_configure_one(
    curator_client, settings, queued_pair
):
    settings.QQ_LLM_URL = ""
    assert "Suggest a merged text" not in curator_client.get("/review/").content.decode()
    field = curator_client.get(f"/review/{queued_pair.pk}/llm/").content.decode()
    assert "no LLM is configured: set QQ_LLM_URL" in field


def test_the_api_suggests_a_text_and_writes_nothing(curator_client, settings, llm_url, queued_pair):
    settings.QQ_LLM_URL, settings.QQ_LLM_MODEL = llm_url, "qwen3"
    url = f"/api/duplicates/{queued_pair.pk}/suggestion"
    answer = curator_client.post(url, {}, content_type="application/json")
    assert answer.status_code == 200
    assert answer.json() == {"content": "Lumen stores its notes in MongoDB 8.", "model": "qwen3"}
    assert notes_store().count() == 2
    settings.QQ_LLM_URL = ""
    refused = curator_client.post(url, {}, content_type="application/json")
    assert refused.status_code == 400 and refused.json()["error"]["field"] == "llm"


def test_auto_consolidation_can_ask_the_llm_for_each_merged_text(settings, llm_url, queued_pair):
    from qqweb.jobs.runner import job_create, job_run
    from qqweb.lib.actors import Actor

    settings.QQ_LLM_URL, settings.QQ_LLM_MODEL = llm_url, "qwen3"
    run = job_create(
        kind="auto_consolidation",
        actor=Actor("user", "ada"),
        params={"force": True, "use_llm": True, "threshold": 0.85, "merge": "unflagged"},
    )
    assert job_run(run=run)["merged"] == 1
    assert notes_store().get_full_note("note_0000000000a1")["content"] == (
        "Lumen stores its notes in MongoDB 8."
    )
