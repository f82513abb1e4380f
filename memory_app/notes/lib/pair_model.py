"""A learned "possibly a different fact" score for a near-duplicate pair: logistic
regression over the pair's two sentence vectors (all-MiniLM-L6-v2, unit length) and a few
cheap facts about its two texts, for the pairs the rules of :mod:`.differences` find no
value in (a clause added, words swapped).

Trained by ``bench/judgment_train.py`` on the train splits of the judgment benchmark
(``make bench-judgment-train``), its weights committed beside this module in
``pair_model.npz`` (a few KB, float64); nothing is downloaded. Pure numpy, no framework.

Features of a pair (``u``, ``v`` the unit vectors, symmetric in the two sides):

- ``|u - v|`` and ``u * v`` (384 each) and the cosine;
- the kinds :func:`.differences.differences` finds (one-hot) and whether the texts are the
  same words (:func:`.differences.same_words`);
- words: the shorter text's share of the longer's words, the Jaccard overlap of their
  content words, the content words only one side has (the fewer side and the more side,
  as ``log1p``), and whether they have the same content words in another order.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from qqweb.lib import difference_words as W
from qqweb.lib.differences import KINDS, Difference, differences, same_words

WEIGHTS = Path(__file__).with_name("pair_model.npz")
DIM = 384  # all-MiniLM-L6-v2
MODEL = "all-MiniLM-L6-v2"
TEXT_FEATURES = (
    "cosine",
    *(f"kind:{k}" for k in KINDS),
    "same_words",
    "length_ratio",
    "jaccard",
    "only_fewer",
    "only_more",
    "same_set_other_order",
)


def _content(text: str) -> list[str]:
    return [w for w in W.WORD.findall(text.lower()) if w not in W.NOT_NEGATED and len(w) > 2]


def text_features(
    cosine: float, left: str, right: str, found: tuple[Difference, ...] | None = None
) -> np.ndarray:
    """The :data:`TEXT_FEATURES` of a pair (``found``: its differences, when known)."""
    found = differences(left, right) if found is None else found
    kinds = {d.kind for d in found}
    wa, wb = W.WORD.findall(left.lower()), W.WORD.findall(right.lower())
    ca, cb = _content(left), _content(right)
    sa, sb = set(ca), set(cb)
    union = sa | sb
    only = sorted((len(sa - sb), len(sb - sa)))
    return np.array(
        [
            cosine,
            *(float(k in kinds) for k in KINDS),
            float(same_words(left, right)),
            min(len(wa), len(wb)) / max(1, len(wa), len(wb)),
            len(sa & sb) / len(union) if union else 1.0,
            np.log1p(only[0]),
            np.log1p(only[1]),
            float(sa == sb and ca != cb),
        ],
        dtype=np.float64,
    )


def pair_features(
    u: np.ndarray,
    v: np.ndarray,
    left: str,
    right: str,
    found: tuple[Difference, ...] | None = None,
) -> np.ndarray:
    """One pair's feature row: ``|u - v|``, ``u * v`` and :func:`text_features`."""
    u = np.asarray(u, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    u = u / (np.linalg.norm(u) or 1.0)
    v = v / (np.linalg.norm(v) or 1.0)
    return np.concatenate([np.abs(u - v), u * v, text_features(float(u @ v), left, right, found)])


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))  # no overflow warning for large |z|


@dataclass(frozen=True)
class PairModel:
    """Standardised features times ``weights`` plus ``bias``, through a sigmoid;
    ``threshold`` is the probability from which a pair is flagged (chosen on held-out
    train pairs, see bench/judgment_train.py)."""

    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    bias: float
    threshold: float
    about: str = ""  # how it was trained and chosen (bench/judgment_train.py)

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        z = ((np.atleast_2d(rows) - self.mean) / self.scale) @ self.weights + self.bias
        return _sigmoid(z)

    def save(self, path: Path = WEIGHTS) -> None:
        np.savez_compressed(
            path,
            mean=self.mean,
            scale=self.scale,
            weights=self.weights,
            bias=np.array(self.bias),
            threshold=np.array(self.threshold),
            about=np.array(self.about),
            model=np.array(MODEL),
        )


@cache
def pair_model(path: Path = WEIGHTS) -> PairModel:
    """The committed model (read once a process)."""
    with np.load(path, allow_pickle=False) as data:
        return PairModel(
            data["mean"],
            data["scale"],
            data["weights"],
            float(data["bias"]),
            float(data["threshold"]),
            str(data["about"]),
        )


def different_fact_probability(
    u: np.ndarray,
    v: np.ndarray,
    left: str,
    right: str,
    found: tuple[Difference, ...] | None = None,
) -> float:
    """The model's probability that the pair states two different facts, not one."""
    return float(pair_model().probabilities(pair_features(u, v, left, right, found))[0])
