"""A BERT sentence-transformers model (the packaged all-MiniLM-L6-v2) in numpy float32.

Why: in a fresh process ``import torch`` takes 8.5 s and ``import sentence_transformers``
another 18 s on the 2-core machine here (load 4.3), so a web worker could not answer its
first search until about 35 s after it started. This encoder needs only ``tokenizers`` and
``safetensors.numpy`` (0.4 s to import) and reads the same files, so a process encodes its
first query about a second after it starts, with the same vectors (at most 3e-7 off a
coordinate on the 44 texts of tests/fixtures/golden_minilm_st.npz, which
tests/memory_app/notes/test_embeddings_numpy.py holds to 1e-5 without torch; the live comparison
is tests/memory_app/notes/test_embeddings_torch.py, `make test-torch`).
Measured by ``bench/encoder_start.py`` (2 cores, load 5-8): a fresh process to its
first encoded query 3.85 s against 42.3 s through sentence-transformers (11x; 2.9 s of the
3.85 is importing the project's library, the model 0.5-0.9 s); warm, with one BLAS thread,
1 query 22 ms against 27 ms and 64 notes 3.2 s against 2.4 s (torch's kernels are faster
on big batches).

The pipeline, as sentence-transformers runs it for such a model directory:

1. the tokenizer of ``tokenizer.json`` (its own normaliser, WordPiece and [CLS]/[SEP]
   template), truncated to ``max_seq_length`` of ``sentence_bert_config.json`` (special
   tokens included) and padded to the longest text of a batch, with an attention mask;
2. the BERT encoder of ``config.json`` / ``model.safetensors``: word + position +
   token-type embeddings, LayerNorm, then per layer multi-head self-attention over the
   unmasked tokens, residual + LayerNorm, a GELU (erf form) feed-forward, residual +
   LayerNorm;
3. mean pooling over the attention mask (``1_Pooling/config.json``), then L2 normalisation
   (the ``Normalize`` module of ``modules.json``).

Only that shape is supported (:func:`unsupported_reason` says why another is not); any
other model directory keeps using sentence-transformers. Texts are sorted by length and
encoded in batches whose padded size is bounded, so memory stays bounded for any input.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

# The module types of modules.json this encoder runs, in order (older sentence-transformers
# write "sentence_transformers.models.X"; newer ones may write a longer dotted path).
_MODULES = ("Transformer", "Pooling", "Normalize")
# Tokens a batch may hold (rows x padded length): for MiniLM at most 100 MB of attention
# scores (32 texts of 256 pieces) and 50 MB of feed-forward activations, whatever the input.
_BATCH_TOKENS = 8192
# 1e-12 as torch.nn.functional.normalize's eps (a zero vector stays zero).
_NORM_EPS = 1e-12


def _read_json(path: Path) -> Any:
    with path.open(encoding="utf-8") as f:
        return json.load(f)


def unsupported_reason(model_dir: str | Path) -> str | None:
    """None when ``model_dir`` is a sentence-transformers directory this encoder runs
    exactly (BERT, absolute positions, GELU, mean pooling, Normalize, safetensors weights);
    otherwise a short reason. Reads only the small JSON files."""
    root = Path(model_dir)
    if not root.is_dir():
        return f"{model_dir} is not a model directory"
    for name in ("config.json", "modules.json", "tokenizer.json", "model.safetensors"):
        if not (root / name).is_file():
            return f"no {name}"
    try:
        modules = _read_json(root / "modules.json")
        types = tuple(str(m.get("type", "")).rsplit(".", 1)[-1] for m in modules)
        if types != _MODULES or modules[0].get("path", "") != "":
            return f"modules {types} (supported: {_MODULES})"
        config = _read_json(root / "config.json")
        pooling = _read_json(root / modules[1].get("path", "") / "config.json")
        sbert_path = root / "sentence_bert_config.json"
        sbert = _read_json(sbert_path) if sbert_path.is_file() else {}
    except (OSError, ValueError) as e:
        return f"unreadable configuration: {e}"
    if config.get("model_type") != "bert":
        return f"model_type {config.get('model_type')!r} (supported: 'bert')"
    if config.get("hidden_act") != "gelu":
        return f"hidden_act {config.get('hidden_act')!r} (supported: 'gelu')"
    if config.get("position_embedding_type", "absolute") != "absolute":
        return f"position_embedding_type {config.get('position_embedding_type')!r}"
    if config["hidden_size"] % config["num_attention_heads"]:
        return "hidden_size is not a multiple of num_attention_heads"
    modes = sorted(k for k, v in pooling.items() if k.startswith("pooling_mode_") and v)
    if modes != ["pooling_mode_mean_tokens"]:
        return f"pooling {modes} (supported: mean tokens)"
    if pooling.get("word_embedding_dimension", config["hidden_size"]) != config["hidden_size"]:
        return "pooling dimension differs from hidden_size"
    if sbert.get("do_lower_case"):
        return "do_lower_case in sentence_bert_config.json"
    return None


# Abramowitz and Stegun 7.1.26: erf(z) = 1 - t * P(t) * exp(-z^2), t = 1 / (1 + P0 z), z >= 0,
# absolute error below 1.5e-7.
_P0 = 0.3275911
_P = (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592)
# Rows of the feed-forward activations GELU works on at a time (1.5 MB for MiniLM: its
# temporaries stay in the CPU's cache instead of streaming ~30 MB arrays ten times).
_GELU_ROWS = 256


def _erfc_abs(z: np.ndarray) -> np.ndarray:
    """1 - erf(|z|), float32, a new array; ``|z|`` capped at 5 (erf(5) is 1 in float32) so
    that ``exp`` never makes subnormal floats, which are about a hundred times slower."""
    a = np.minimum(np.abs(z), 5.0)
    t = a * _P0
    t += 1.0
    np.reciprocal(t, out=t)
    y = t * _P[0]
    for c in _P[1:]:
        y += c
        y *= t
    np.square(a, out=a)
    np.negative(a, out=a)
    np.exp(a, out=a)
    y *= a
    return y


def erf(x: np.ndarray) -> np.ndarray:
    """The error function, vectorised in float32 (absolute error below 1.5e-7)."""
    return np.copysign(1.0 - _erfc_abs(x), x).astype(x.dtype, copy=False)


def gelu_(x: np.ndarray) -> np.ndarray:
    """BERT's "gelu", x * Phi(x) in the exact (erf) form, not the tanh approximation;
    in place on the 2-d ``x``, a block of rows at a time. With h = erfc(|x| / sqrt 2) / 2:
    x * (1 - h) where x >= 0, x * h below (error below 1e-6 * max(1, |x|))."""
    for start in range(0, x.shape[0], _GELU_ROWS):
        block = x[start : start + _GELU_ROWS]
        h = _erfc_abs(block * np.float32(1.0 / math.sqrt(2.0)))
        h *= 0.5
        np.subtract(1.0, h, out=h, where=block >= 0)
        block *= h
    return x


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = np.mean(centred * centred, axis=-1, keepdims=True)
    return centred / np.sqrt(var + eps) * weight + bias


class NumpyBertEncoder:
    """Loads the tokenizer and weights of a supported model directory (about 0.5 s for
    MiniLM); :meth:`encode` gives the sentence-transformers vectors, L2-normalised."""

    def __init__(self, model_dir: str | Path) -> None:
        reason = unsupported_reason(model_dir)
        if reason:
            raise ValueError(f"the numpy encoder cannot run {model_dir}: {reason}")
        from safetensors.numpy import load_file  # ~0.4 s with tokenizers, against ~27 s
        from tokenizers import Tokenizer

        root = Path(model_dir)
        config = _read_json(root / "config.json")
        sbert_path = root / "sentence_bert_config.json"
        sbert = _read_json(sbert_path) if sbert_path.is_file() else {}
        self.heads = int(config["num_attention_heads"])
        self.dimension = int(config["hidden_size"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.max_length = int(
            min(sbert.get("max_seq_length") or 512, config["max_position_embeddings"])
        )
        self.tokenizer = Tokenizer.from_file(str(root / "tokenizer.json"))
        self.tokenizer.no_padding()  # each batch is padded to its longest text below
        self.tokenizer.enable_truncation(max_length=self.max_length, strategy="longest_first")
        self.pad_id = int(config.get("pad_token_id") or 0)
        raw = load_file(str(root / "model.safetensors"))
        raw = {k.removeprefix("bert."): v.astype(np.float32, copy=False) for k, v in raw.items()}
        self._embeddings = (
            raw["embeddings.word_embeddings.weight"],
            raw["embeddings.position_embeddings.weight"],
            raw["embeddings.token_type_embeddings.weight"],
            raw["embeddings.LayerNorm.weight"],
            raw["embeddings.LayerNorm.bias"],
        )
        self._layers = [
            self._layer(raw, f"encoder.layer.{i}.") for i in range(config["num_hidden_layers"])
        ]

    @staticmethod
    def _layer(raw: dict[str, np.ndarray], p: str) -> dict[str, np.ndarray]:
        """One layer's weights, transposed once for ``x @ w`` (query, key, value fused)."""
        qkv = [raw[f"{p}attention.self.{n}.weight"] for n in ("query", "key", "value")]
        qkv_bias = [raw[f"{p}attention.self.{n}.bias"] for n in ("query", "key", "value")]
        return {
            "qkv": np.ascontiguousarray(np.concatenate(qkv).T),
            "qkv_b": np.concatenate(qkv_bias),
            "out": np.ascontiguousarray(raw[f"{p}attention.output.dense.weight"].T),
            "out_b": raw[f"{p}attention.output.dense.bias"],
            "ln1_w": raw[f"{p}attention.output.LayerNorm.weight"],
            "ln1_b": raw[f"{p}attention.output.LayerNorm.bias"],
            "up": np.ascontiguousarray(raw[f"{p}intermediate.dense.weight"].T),
            "up_b": raw[f"{p}intermediate.dense.bias"],
            "down": np.ascontiguousarray(raw[f"{p}output.dense.weight"].T),
            "down_b": raw[f"{p}output.dense.bias"],
            "ln2_w": raw[f"{p}output.LayerNorm.weight"],
            "ln2_b": raw[f"{p}output.LayerNorm.bias"],
        }

    def encode(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        """``(len(texts), dimension)`` float32, unit length, in the order of ``texts``.
        Texts are sorted by length, then batched by at most ``batch_size`` texts and about
        ``_BATCH_TOKENS`` padded tokens."""
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return out
        if len(texts) == 1:  # a query: no padding, no attention mask (every token is real)
            return self._encode_one(texts[0])[None, :]
        encodings = self.tokenizer.encode_batch(texts)
        for rows in length_batches([len(e.ids) for e in encodings], batch_size, _BATCH_TOKENS):
            out[rows] = self._encode_batch([encodings[i] for i in rows])
        return out

    def _encode_batch(self, encodings: list[Any]) -> np.ndarray:
        ids, types, mask = padded(encodings, self.pad_id)
        hidden = self._forward(ids, types, mask)
        pooled = mean_pooled(hidden, mask)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return pooled / np.maximum(norms, _NORM_EPS)

    def _encode_one(self, text: str) -> np.ndarray:
        e = self.tokenizer.encode(text)
        ids = np.asarray([e.ids], dtype=np.int64)
        types = np.asarray([e.type_ids], dtype=np.int64)
        pooled = self._forward(ids, types, None)[0].mean(axis=0)
        return pooled / max(float(np.linalg.norm(pooled)), _NORM_EPS)

    def _forward(self, ids: np.ndarray, types: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
        words, positions, token_types, ln_w, ln_b = self._embeddings
        x = words[ids] + positions[: ids.shape[1]][None, :, :] + token_types[types]
        x = layer_norm(x, ln_w, ln_b, self.eps)
        return encoder_layers(x, mask, self._layers, self.heads, self.eps)


def length_batches(lengths: list[int], max_rows: int, max_tokens: int) -> list[list[int]]:
    """Indices of the inputs, sorted by length and cut into batches of at most
    ``max_rows`` rows and about ``max_tokens`` padded tokens (a longer input alone)."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    out = []
    start = 0
    while start < len(order):
        longest = lengths[order[start]]
        stop = start + 1
        while stop < len(order) and stop - start < max_rows:
            longest = max(longest, lengths[order[stop]])
            if (stop - start + 1) * longest > max_tokens:
                break
            stop += 1
        out.append(order[start:stop])
        start = stop
    return out


def padded(encodings: list[Any], pad_id: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The token ids, token types and attention mask of ``encodings`` (the tokenizer's),
    padded to the longest."""
    width = max(len(e.ids) for e in encodings)
    ids = np.full((len(encodings), width), pad_id, dtype=np.int64)
    types = np.zeros_like(ids)
    mask = np.zeros((len(encodings), width), dtype=np.float32)
    for row, e in enumerate(encodings):
        n = len(e.ids)
        ids[row, :n] = e.ids
        types[row, :n] = e.type_ids
        mask[row, :n] = e.attention_mask
    return ids, types, mask


def mean_pooled(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The mean of each row's unmasked token states (sentence-transformers' mean pooling)."""
    weights = mask[:, :, None]
    return (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)


def encoder_layers(
    x: np.ndarray,
    mask: np.ndarray | None,
    layers: list[dict[str, np.ndarray]],
    heads: int,
    eps: float,
) -> np.ndarray:
    """BERT's layers over the embedded tokens ``x`` (batch, width, dimension), ``mask`` 1.0
    where a token is real; the weights of each layer as :meth:`NumpyBertEncoder._layer`
    arranges them. Shared with the pair judge (qqweb/lib/judge/model.py)."""
    batch, width, dimension = x.shape
    x = x.reshape(batch * width, dimension)
    head = dimension // heads
    scale = np.float32(1.0 / math.sqrt(head))
    # Masked keys get the lowest float32 (as transformers does), and weight 0 after exp();
    # no mask (one text, every token real): nothing to add or keep.
    bias = None if mask is None else ((1.0 - mask) * np.finfo(np.float32).min)[:, None, None, :]
    keep = None if mask is None else mask[:, None, None, :]
    for w in layers:
        qkv = (x @ w["qkv"] + w["qkv_b"]).reshape(batch, width, 3, heads, head)
        # (batch, heads, width, head) contiguous: matmul of strided views skips BLAS
        q, k, v = np.ascontiguousarray(qkv.transpose(2, 0, 3, 1, 4))
        scores = (q @ k.transpose(0, 1, 3, 2)) * scale
        if bias is not None:
            scores += bias
        scores -= scores.max(axis=-1, keepdims=True)
        np.maximum(scores, -80.0, out=scores)  # no subnormal exp() (see erf)
        np.exp(scores, out=scores)
        if keep is not None:
            scores *= keep
        scores /= scores.sum(axis=-1, keepdims=True)
        context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch * width, dimension)
        x = layer_norm(context @ w["out"] + w["out_b"] + x, w["ln1_w"], w["ln1_b"], eps)
        up = x @ w["up"]
        up += w["up_b"]
        gelu_(up)
        x = layer_norm(up @ w["down"] + w["down_b"] + x, w["ln2_w"], w["ln2_b"], eps)
    return x.reshape(batch, width, dimension)
