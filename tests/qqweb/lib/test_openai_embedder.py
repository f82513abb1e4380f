"""The OpenAI-compatible backend against a real HTTP server on loopback that answers
like the agent's TEI service (``POST /v1/embeddings``)."""

from collections.abc import Iterator
from typing import Any

import pytest

from qqweb.lib.embeddings import OpenAIEmbedder
from tests.helpers import json_server

SEEN: list[dict[str, Any]] = []


def embeddings(path: str, body: dict[str, Any]) -> dict[str, Any]:
    # Answer out of order, as servers may; each vector encodes its input's length.
    data = [
        {"index": i, "embedding": [float(len(text)), 1.0, 0.0, 2.0]}
        for i, text in enumerate(body["input"])
    ][::-1]
    return {"object": "list", "data": data, "model": body["model"]}


@pytest.fixture
def tei_url() -> Iterator[str]:
    SEEN.clear()
    with json_server(embeddings, SEEN) as url:
        yield url


def test_posts_model_and_input_and_keeps_the_input_order(tei_url):
    embedder = OpenAIEmbedder(tei_url, "Qwen/Qwen3-Embedding-0.6B", api_key="sekrit")
    vectors = embedder.embed(["a", "abc"])
    assert vectors[:, 0].tolist() == [1.0, 3.0]
    sent = SEEN[0]
    assert sent["path"] == "/v1/embeddings"
    assert sent["body"] == {"model": "Qwen/Qwen3-Embedding-0.6B", "input": ["a", "abc"]}
    assert sent["auth"] == "Bearer sekrit"


def test_reports_the_dimension_the_service_returns(tei_url):
    assert OpenAIEmbedder(tei_url, "any").dimension == 4
