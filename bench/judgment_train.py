"""Train the learned pair model (memory_app/notes/lib/pair_model.py) on the judgment
benchmark's train split and write its weights to memory_app/notes/lib/pair_model.npz. Run on
purpose: ``make bench-judgment-train`` (after bench/judgment_data.py extracted the pairs and
bench/judgment.py cached their vectors; seconds then).

Only the train split is read. Labels: 1 for a different fact (``different`` or
``contradiction``), 0 for ``dup``; ``detail`` pairs are left out. The model is L2-regularised
logistic regression fitted by Newton's method on standardised features (deterministic: no
random start, no sampling).

Model selection and the decision threshold come from 5-fold cross-validation on train, its
folds drawn (seed 24) by groups of pairs that share a sentence, so that no sentence of a
held-out fold was seen in fitting (SICK reuses its sentences across many pairs; random folds
let the model recognise them). For each candidate (feature set x L2 strength x the pairs it
is fitted on) the out-of-fold probabilities are scored by their AUC among the train pairs
reaching the review queue (cosine >= QQ_DEDUP_THRESHOLD) that the rules leave unflagged:
the pairs where the model can add anything. The best candidate is refitted on every train
pair, and its threshold is the lowest probability at which the rules' flags and the model's
together falsely flag at most 10% of the true duplicates in the queue, out of fold. Dev is
not read here: bench/judgment.py reports it.

    .venv/bin/python bench/judgment_train.py
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from judgment import embed_all, settings
from judgment_data import OUT as PAIRS
from judgment_data import Pair, read

from memory_app.notes.lib.pair_model import (
    DIM,
    TEXT_FEATURES,
    WEIGHTS,
    PairModel,
    pair_features,
)
from qqweb.lib.differences import differences

SEED = 24
FOLDS = 5
FALSE_FLAG_LIMIT = 0.10
N_FEATURES = 2 * DIM + len(TEXT_FEATURES)
FEATURE_SETS = {
    "text": list(range(2 * DIM, N_FEATURES)),
    "|u-v| + text": [*range(DIM), *range(2 * DIM, N_FEATURES)],
    "|u-v| + u*v + text": list(range(N_FEATURES)),
}
L2 = (1.0, 10.0, 100.0, 1000.0, 3000.0, 10000.0)
FIT_ON = {"all pairs": 0.0, "cosine >= 0.80": 0.80}
THRESHOLDS = np.round(np.arange(0.05, 1.0, 0.01), 2)


@dataclass(frozen=True)
class Data:
    pairs: list[Pair]
    rows: np.ndarray  # pair_features
    label: np.ndarray  # 1 = a different fact
    flagged: np.ndarray  # the rules found a difference
    cosine: np.ndarray


def load(split: str) -> Data:
    pairs = [p for p in read() if p.split == split and p.label != "detail"]
    vectors = embed_all([t for p in pairs for t in (p.left, p.right)], settings.QQ_EMBEDDING_MODEL)
    rows, flagged = [], []
    for p in pairs:
        found = differences(p.left, p.right)
        rows.append(pair_features(vectors[p.left], vectors[p.right], p.left, p.right, found))
        flagged.append(bool(found))
    X = np.array(rows)
    return Data(
        pairs,
        X,
        np.array([p.label != "dup" for p in pairs], dtype=np.float64),
        np.array(flagged),
        X[:, 2 * DIM],  # text_features starts with the cosine
    )


def groups(pairs: list[Pair]) -> np.ndarray:
    """A group id per pair: pairs joined by a shared sentence are one group."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for p in pairs:
        parent[find(p.left)] = find(p.right)
    roots = sorted({find(p.left) for p in pairs})
    number = {r: i for i, r in enumerate(roots)}
    return np.array([number[find(p.left)] for p in pairs])


def folds(pairs: list[Pair]) -> np.ndarray:
    g = groups(pairs)
    order = np.random.default_rng(SEED).permutation(g.max() + 1)
    return order[g] % FOLDS


def standardise(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mean = X.mean(axis=0)
    scale = X.std(axis=0)
    scale[scale == 0] = 1.0
    return mean, scale


def fit(Z: np.ndarray, y: np.ndarray, l2: float) -> tuple[np.ndarray, float]:
    """Weights and bias of L2-regularised logistic regression (the bias not penalised)."""
    A = np.hstack([Z, np.ones((len(Z), 1))])
    beta = np.zeros(A.shape[1])
    penalty = np.full(A.shape[1], l2)
    penalty[-1] = 0.0
    for _ in range(50):
        p = 0.5 * (1.0 + np.tanh(0.5 * (A @ beta)))
        gradient = A.T @ (p - y) + penalty * beta
        hessian = (A * (p * (1 - p))[:, None]).T @ A + np.diag(penalty)
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if np.abs(step).max() < 1e-10:
            break
    return beta[:-1], float(beta[-1])


def model(X: np.ndarray, y: np.ndarray, cols: list[int], l2: float, threshold: float) -> PairModel:
    """A fitted :class:`PairModel` over every feature, zero weight outside ``cols``."""
    mean, scale = np.zeros(N_FEATURES), np.ones(N_FEATURES)
    mean[cols], scale[cols] = standardise(X[:, cols])
    w, bias = fit((X[:, cols] - mean[cols]) / scale[cols], y, l2)
    weights = np.zeros(N_FEATURES)
    weights[cols] = w
    return PairModel(mean, scale, weights, bias, threshold)


def auc(score: np.ndarray, y: np.ndarray) -> float:
    """The chance a random different-fact pair scores above a random duplicate."""
    pos, neg = score[y == 1], score[y == 0]
    if not len(pos) or not len(neg):
        return float("nan")
    above = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return float(above / (len(pos) * len(neg)))


def queue_figures(
    d: Data, p: np.ndarray, threshold: float, queue: float, rules: bool = True
) -> tuple[int, int, int, int]:
    """(different facts unflagged, different facts, duplicates flagged, duplicates) in the
    queue, flagged by the rules (if ``rules``) or the model at ``threshold``."""
    q = d.cosine >= queue
    flag = (d.flagged if rules else np.zeros_like(d.flagged)) | (p >= threshold)
    diff, dup = q & (d.label == 1), q & (d.label == 0)
    return int((~flag[diff]).sum()), int(diff.sum()), int(flag[dup].sum()), int(dup.sum())


def choose_threshold(d: Data, p: np.ndarray, queue: float) -> float:
    """The lowest threshold at which rules and model falsely flag at most 10% of the
    duplicates in the queue (1.01, never flagging, when none does)."""
    for t in THRESHOLDS:
        _, _, false, dups = queue_figures(d, p, float(t), queue)
        if false <= FALSE_FLAG_LIMIT * dups:
            return float(t)
    return 1.01


def out_of_fold(d: Data, fold: np.ndarray, cols: list[int], l2: float, low: float) -> np.ndarray:
    p = np.zeros(len(d.pairs))
    for k in range(FOLDS):
        fitting = (fold != k) & (d.cosine >= low)
        m = model(d.rows[fitting], d.label[fitting], cols, l2, 0.5)
        p[fold == k] = m.probabilities(d.rows[fold == k])
    return p


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=WEIGHTS)
    args = parser.parse_args()
    if not PAIRS.exists():
        sys.exit(f"{PAIRS} is missing: run bench/judgment_data.py first")
    queue = float(settings.QQ_DEDUP_THRESHOLD)
    d = load("train")
    fold = folds(d.pairs)
    unflagged_q = (d.cosine >= queue) & ~d.flagged
    print(f"train: {len(d.pairs)} pairs, {FOLDS} folds by shared sentence (seed {SEED})")
    print("| features | L2 | fitted on | out-of-fold AUC (queue, unflagged by rules) |")
    print("| --- | ---: | --- | ---: |")
    best: tuple[float, str, float, str] | None = None
    best_p = np.zeros(0)
    for name, cols in FEATURE_SETS.items():
        for l2 in L2:
            for fit_on, low in FIT_ON.items():
                p = out_of_fold(d, fold, cols, l2, low)
                score = auc(p[unflagged_q], d.label[unflagged_q])
                print(f"| {name} | {l2:g} | {fit_on} | {score:.3f} |")
                if best is None or score > best[0]:
                    best, best_p = (score, name, l2, fit_on), p
    assert best is not None
    score, name, l2, fit_on = best
    threshold = choose_threshold(d, best_p, queue)
    fig = queue_figures(d, best_p, threshold, queue)
    about = (
        f"logistic regression on {name}, L2 {l2:g}, fitted on {fit_on} of train "
        f"({len(d.pairs)} pairs; out-of-fold AUC {score:.3f} among the queue's pairs the "
        f"rules leave unflagged); threshold {threshold:.2f}, where out of fold the rules and "
        f"the model leave {fig[0]}/{fig[1]} different facts in the queue unflagged and flag "
        f"{fig[2]}/{fig[3]} duplicates"
    )
    print("\n" + about)
    fitting = d.cosine >= FIT_ON[fit_on]
    final = model(d.rows[fitting], d.label[fitting], FEATURE_SETS[name], l2, threshold)
    final = PairModel(final.mean, final.scale, final.weights, final.bias, threshold, about)
    final.save(args.out)
    print(f"written to {args.out} ({args.out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
