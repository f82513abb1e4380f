"""Small helpers the tests share: notes written through the store, with the deterministic
hashing embedder, and a real JSON HTTP server on loopback for the OpenAI-compatible
clients."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from memory_app.memory import HashingEmbedder
from memory_app.stores import notes_store

EMBEDDER = HashingEmbedder(384)


def vector(text: str) -> list[float]:
    return [float(x) for x in EMBEDDER.embed([text])[0]]


def add_note(
    note_id: str, content: str, section: str = "Key Topics", importance: float = 0.5
) -> None:
    """A note written the way the agent's upsert writes it, embedded with the test embedder."""
    notes_store().upsert_note(note_id, content, vector(content), section, importance=importance)


@contextmanager
def json_server(
    answer: Callable[[str, dict[str, Any]], dict[str, Any]], seen: list[dict[str, Any]]
) -> Iterator[str]:
    """An HTTP server on 127.0.0.1 answering every POST with ``answer(path, body)``; each
    request (path, body, Authorization) is appended to ``seen``. Yields the base URL."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append(
                {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
            )
            payload = json.dumps(answer(self.path, body)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()


def plant_note(
    note_id: str,
    importance: float = 0.5,
    days_old: int = 0,
    embedding: list[float] | None = None,
    now: Any = None,
    **extra: Any,
) -> dict[str, Any]:
    """A document exactly as the agent writes it, created ``days_old`` days ago and never
    read (embedding: 384 x 0.1 unless given)."""
    from datetime import timedelta

    from memory_app.memory.mongo_store import utcnow_naive

    now = now or utcnow_naive()
    doc = {
        "note_id": note_id,
        "content": f"content of {note_id}",
        "embedding": [0.1] * 384 if embedding is None else embedding,
        "section": "Key Topics",
        "metadata": {},
        "importance": importance,
        "decay_rate": 0.01,
        "access_count": 0,
        "created_at": now - timedelta(days=days_old),
        "updated_at": now - timedelta(days=days_old),
        "last_accessed": None,
        **extra,
    }
    notes_store().collection.insert_one(dict(doc))
    return doc
