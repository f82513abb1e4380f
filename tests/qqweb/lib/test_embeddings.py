import numpy as np
import pytest

from qqweb.lib.embeddings import (
    HashingEmbedder,
    OpenAIEmbedder,
    SentenceTransformerEmbedder,
    build_embedder,
)
from qqweb.lib.errors import StoreUnavailable


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_hashing_embedder_gives_similar_texts_similar_vectors():
    vectors = HashingEmbedder(384).embed(
        [
            "Lumen uses MongoDB for vector search",
            "Lumen relies on MongoDB for vector search",
            "Priya prefers code reviews on Fridays",
        ]
    )
    assert vectors.shape == (3, 384)
    assert cosine(vectors[0], vectors[1]) > 0.6
    assert cosine(vectors[0], vectors[1]) > cosine(vectors[0], vectors[2]) + 0.4


def test_hashing_embedder_is_deterministic_across_instances():
    a = HashingEmbedder(64).embed(["same text"])
    b = HashingEmbedder(64).embed(["same text"])
    assert np.array_equal(a, b)
    assert np.isclose(np.linalg.norm(a[0]), 1.0)


def test_unknown_backend_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="sentence-transformers, openai or hashing"):
        build_embedder("word2vec", model="x")


def test_openai_backend_reports_an_unreachable_endpoint_as_unavailable():
    embedder = OpenAIEmbedder("http://127.0.0.1:9/v1", "qwen3-embedding", timeout=1)
    with pytest.raises(StoreUnavailable, match="embedder is unavailable"):
        embedder.embed(["hello"])


@pytest.mark.realmodel
def test_packaged_minilm_loads_offline_and_ranks_paraphrases_first():
    embedder = SentenceTransformerEmbedder("all-MiniLM-L6-v2")
    assert embedder.dimension == 384
    v = embedder.embed(
        [
            "The user lives in Lisbon, Portugal",
            "The user's home is in Lisbon",
            "Kubernetes schedules containers onto nodes",
        ]
    )
    assert cosine(v[0], v[1]) > 0.7
    assert cosine(v[0], v[2]) < 0.3
