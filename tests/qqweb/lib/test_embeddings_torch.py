"""The live comparisons with sentence-transformers (torch): they need the ``torch`` extra,
which the default install leaves out, so they run only with ``make test-torch`` (its own
environment, .venv-torch). A default run checks the numpy encoder against the vectors
sentence-transformers gave, committed (test_embeddings_numpy.py); the last test here
checks that those are still what it gives."""

import numpy as np
import pytest

from qqweb.lib.embeddings import SentenceTransformerEmbedder
from qqweb.lib.embeddings_numpy import NumpyBertEncoder, unsupported_reason
from tests.qqweb.lib.test_embeddings_numpy import GOLDEN, MODEL_DIR, copy_with

pytestmark = [pytest.mark.torch, pytest.mark.realmodel]

NOTES = [
    "The user prefers short answers and dark mode in every editor.",
    "Decided on 2024-05-01: project Lumen stores its vectors in MongoDB, not Postgres.",
    "Priya reviews pull requests on Fridays; ask her before merging schema changes.",
    "Deploys go through the staging cluster first (k8s, namespace lumen-staging).",
]
TEXTS = [
    "where are the vectors stored?",  # a short query
    *NOTES,  # agent-style notes
    # longer than 256 word pieces: truncated to max_seq_length
    " ".join(
        f"Step {i}: the agent archived note_{i:04d} after its importance decayed."
        for i in range(40)
    ),
    "Café naïve résumé — Zürich, São Paulo, Kraków 🚀🎉 日本語のテキスト Привет",  # unicode
    "",  # sentence-transformers encodes it as [CLS] [SEP]
    "ok",
    "   leading and trailing spaces   ",
]


@pytest.fixture(scope="module")
def model():
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(MODEL_DIR), device="cpu")


@pytest.fixture(scope="module")
def reference(model) -> np.ndarray:
    return np.asarray(model.encode(TEXTS, normalize_embeddings=True), dtype=np.float32)


@pytest.fixture(scope="module")
def encoder() -> NumpyBertEncoder:
    return NumpyBertEncoder(MODEL_DIR)


def assert_same_vectors(ours: np.ndarray, theirs: np.ndarray) -> None:
    assert ours.shape == theirs.shape and ours.dtype == np.float32
    assert float(np.abs(ours - theirs).max()) < 1e-4
    cosines = (ours * theirs).sum(axis=1) / (
        np.linalg.norm(ours, axis=1) * np.linalg.norm(theirs, axis=1)
    )
    assert float(cosines.min()) > 0.99999


def test_the_numpy_encoder_gives_the_same_vectors_as_sentence_transformers(encoder, reference):
    assert encoder.tokenizer.encode(TEXTS[5]).overflowing  # truncated at 256 word pieces
    assert_same_vectors(encoder.encode(TEXTS), reference)
    assert np.allclose(np.linalg.norm(encoder.encode(TEXTS), axis=1), 1.0, atol=1e-5)


def test_a_texts_vector_does_not_depend_on_the_batch_it_is_encoded_in(encoder, reference):
    alone = np.vstack([encoder.encode([text]) for text in TEXTS])
    assert_same_vectors(alone, reference)
    # a batch of mixed lengths, more texts than one batch holds, in another order
    mixed = list(reversed(TEXTS)) * 3
    vectors = encoder.encode(mixed, batch_size=4)
    assert_same_vectors(vectors, np.vstack([reference[::-1]] * 3))


def test_a_model_the_numpy_encoder_does_not_support_keeps_sentence_transformers(tmp_path):
    cls_model = copy_with(tmp_path, pooling_mode_cls_token=True, pooling_mode_mean_tokens=False)
    assert "pooling" in (unsupported_reason(cls_model) or "")
    embedder = SentenceTransformerEmbedder(str(cls_model))
    vectors = embedder.embed(["where are the vectors stored?"])
    assert embedder.engine == "torch" and vectors.shape == (1, 384)


def test_the_torch_engine_keeps_sentence_transformers_for_the_packaged_model(reference):
    embedder = SentenceTransformerEmbedder("all-MiniLM-L6-v2", engine="torch")
    assert_same_vectors(embedder.embed(TEXTS), reference)
    assert embedder.engine == "torch"


def test_the_committed_golden_vectors_are_what_sentence_transformers_gives_now(model):
    """When torch or sentence-transformers is upgraded: the default run's reference still
    holds (else run scripts/golden_minilm.py and look at why)."""
    with np.load(GOLDEN) as data:
        texts, golden = [str(t) for t in data["texts"]], data["vectors"]
    live = np.asarray(model.encode(texts, convert_to_numpy=True), dtype=np.float32)
    worst = np.abs(live - golden).max(axis=1)
    assert float(worst.max()) < 1e-5, texts[int(worst.argmax())][:80]
