"""The OpenAI-compatible backend against a real HTTP server on loopback that answers
like the agent's TEI service (``POST /v1/embeddings``)."""

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from memory_app.memory.embeddings import OpenAIEmbedder


class EmbeddingsHandler(BaseHTTPRequestHandler):
    requests: list[dict] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        EmbeddingsHandler.requests.append(
            {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
        )
        # Answer out of order, as servers may; each vector encodes its input's length.
        data = [
            {"index": i, "embedding": [float(len(text)), 1.0, 0.0, 2.0]}
            for i, text in enumerate(body["input"])
        ][::-1]
        payload = json.dumps({"object": "list", "data": data, "model": body["model"]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def tei_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), EmbeddingsHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    EmbeddingsHandler.requests = []
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()


def test_posts_model_and_input_and_keeps_the_input_order(tei_url):
    embedder = OpenAIEmbedder(tei_url, "Qwen/Qwen3-Embedding-0.6B", api_key="sekrit")
    vectors = embedder.embed(["a", "abc"])
    assert vectors[:, 0].tolist() == [1.0, 3.0]
    sent = EmbeddingsHandler.requests[0]
    assert sent["path"] == "/v1/embeddings"
    assert sent["body"] == {"model": "Qwen/Qwen3-Embedding-0.6B", "input": ["a", "abc"]}
    assert sent["auth"] == "Bearer sekrit"


def test_reports_the_dimension_the_service_returns(tei_url):
    assert OpenAIEmbedder(tei_url, "any").dimension == 4
