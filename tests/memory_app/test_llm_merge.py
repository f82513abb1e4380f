"""The LLM merge against a real OpenAI-compatible HTTP server on loopback, and its fallback."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from memory_app.memory import NoteDeduplicator
from memory_app.stores import notes_store

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


class ChatHandler(BaseHTTPRequestHandler):
    prompts: list[str] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        ChatHandler.prompts.append(body["messages"][0]["content"])
        payload = json.dumps(
            {
                "choices": [
                    {
                        "message": {
                            "role": "assistant",
                            "content": " Lumen stores its notes in MongoDB 8. ",
                        }
                    }
                ]
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def llm_url():
    server = ThreadingHTTPServer(("127.0.0.1", 0), ChatHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    ChatHandler.prompts = []
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()


def test_llm_merge_uses_the_models_text_for_the_primary(llm_url):
    dedup = NoteDeduplicator(notes_store(), llm_url=llm_url, llm_model="qwen3")
    merged = dedup.consolidate(A, B, use_llm=True)
    assert merged.content == "Lumen stores its notes in MongoDB 8."
    assert merged.note_id == "note_0000000000a1"
    assert merged.access_count == 3 and merged.importance == 0.75
    assert "Lumen relies on MongoDB 8" in ChatHandler.prompts[0]


def test_without_a_reachable_model_the_simple_merge_is_used():
    dedup = NoteDeduplicator(notes_store(), llm_url="http://127.0.0.1:9/v1", llm_model="x")
    merged = dedup.consolidate(A, B, use_llm=True)
    assert merged.content == "Lumen uses MongoDB"
