"""The LLM merge against a real OpenAI-compatible HTTP server on loopback, and its fallback."""

from collections.abc import Iterator
from typing import Any

import pytest

from memory_app.memory import NoteDeduplicator
from memory_app.stores import notes_store
from tests.helpers import json_server

A = {
    "note_id": "note_0000000000a1",
    "content": "Lumen uses MongoDB",
    "importance": 0.7,
    "access_count": 1,
}
B = {
    "note_id": "note_0000000000a2",
    "content": "Lumen relies on MongoDB 8",
    "importance": 0.4,
    "access_count": 2,
}
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
