"""Small helpers the tests share: notes written through the store, with the deterministic
hashing embedder, and a real JSON HTTP server on loopback for the OpenAI-compatible
clients."""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from memory_app.notes.lib.mongo_store import utcnow_naive
from memory_app.notes.lib.replica.follow import diff
from memory_app.notes.stores import notes_store
from qqweb.lib.embeddings import HashingEmbedder

EMBEDDER = HashingEmbedder(384)


def vector(text: str) -> list[float]:
    return [float(x) for x in EMBEDDER.embed([text])[0]]


def agent_writes(note_id: str, text: str) -> None:
    """A note the agent writes straight to MongoDB (no qqweb process is told)."""
    now = utcnow_naive()
    notes_store().collection.insert_one(
        {
            "note_id": note_id,
            "content": text,
            "section": "Key Topics",
            "embedding": vector(text),
            "importance": 0.5,
            "created_at": now,
            "updated_at": now,
        }
    )


def read_model_caught_up() -> None:
    """Bring this process's read model in step with MongoDB now (the follower's own
    step, run here): for a test that wrote straight to MongoDB, as the agent does, and
    then reads the list, which answers from the read model."""
    index = notes_store().vector_index
    index.refresh(force=True)  # loads it, if this process has not yet
    diff(index)  # what a change stream may not have delivered yet
    index.refresh()


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


# Words for the contents of planted notes: each note gets a few of its own, so two planted
# notes share a word or two at most and their vectors are far apart (cosine about 0.1).
_TECH = ("lumen", "tidepool", "mongodb", "neo4j", "redis", "kafka", "grafana", "django")
_WORK = ("vector", "search", "index", "shard", "replica", "backup", "restore", "deploy")
_CODE = ("release", "rollback", "branch", "commit", "review", "merge", "ticket", "sprint")
_DAYS = ("roadmap", "budget", "invoice", "meeting", "friday", "monday", "morning", "evening")
_HOME = ("coffee", "bicycle", "garden", "kitchen", "guitar", "novel", "podcast", "holiday")
_AWAY = ("train", "airport", "hotel", "museum", "concert", "football", "marathon", "lisbon")
_FOOD = ("recipe", "pasta", "curry", "salad", "printer", "laptop", "keyboard", "monitor")
_MISC = ("router", "battery", "solar", "weather", "winter", "spring", "priya", "dana")
WORDS = (*_TECH, *_WORK, *_CODE, *_DAYS, *_HOME, *_AWAY, *_FOOD, *_MISC)


def note_content(note_id: str, words: int = 8) -> str:
    """A sentence of its own for ``note_id``: the same id always gives the same words."""
    chosen = random.Random(note_id).sample(WORDS, words)
    return " ".join(chosen).capitalize() + "."


def plant_note(
    note_id: str,
    importance: float = 0.5,
    days_old: int = 0,
    embedding: list[float] | None = None,
    now: Any = None,
    content: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A document exactly as the agent writes it, created ``days_old`` days ago and never
    read. Its content is ``note_content(note_id)`` unless given, embedded with the test
    embedder unless ``embedding`` is given: planted notes are not near-duplicates of each
    other unless a test plants them so."""
    from datetime import timedelta

    from memory_app.notes.lib.mongo_store import utcnow_naive

    now = now or utcnow_naive()
    content = note_content(note_id) if content is None else content
    doc = {
        "note_id": note_id,
        "content": content,
        "embedding": vector(content) if embedding is None else embedding,
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


def agent_archive_line(note_id: str, days_ago: int, **extra: Any) -> dict[str, Any]:
    """An ``archive.jsonl`` line exactly as the agent writes one (naive local time),
    archived ``days_ago`` days ago."""
    from datetime import datetime, timedelta

    from memory_app.notes.lib.archive import local_naive_iso

    return {
        "note_id": note_id,
        "content": f"what {note_id} said",
        "section": "Key Topics",
        "importance": 0.02,
        "reason": "low_importance",
        "archived_at": local_naive_iso(datetime.now() - timedelta(days=days_ago)),
        "original_created_at": None,
        "access_count": 0,
        "metadata": {},
        **extra,
    }


def wait_until_counted(index: Any, timeout: float = 30) -> None:
    """Until a loading vector index has counted the notes it is reading (fails after
    ``timeout`` seconds)."""
    deadline = time.monotonic() + timeout
    while index.counted is None:
        assert time.monotonic() < deadline, "the load never counted the notes"
        time.sleep(0.01)


class HeldReads:
    """The notes store with its vector reads held until ``go`` is set (a load without a
    snapshot that has counted the notes and is reading them), counting its counts."""

    def __init__(self, store: Any) -> None:
        self._store, self.vector_index, self.go, self.counts = store, None, threading.Event(), 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def vector_rows(self, **kwargs: Any) -> Any:
        self.go.wait(timeout=30)
        return self._store.vector_rows(**kwargs)

    def count_notes(self, flt: Any = None, **kwargs: Any) -> Any:
        self.counts += 1
        return self._store.count_notes(flt, **kwargs)
