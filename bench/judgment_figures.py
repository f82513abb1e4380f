"""The figures of the judgment benchmark (bench/judgment.py) made of the judged pairs: the
duplicate / different-fact / contradiction shares at a queue threshold, auto-consolidation's
merges, issue 24's targets for the rules, the learned pair model and both, the model's
trade-off curve and AUC, what each kind of difference flags, and examples of the misses.
Pure functions of the pairs as judged (no Django, no embedder).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from bench.judgment_data import Pair
from qqweb.lib.differences import Difference
from qqweb.lib.judge.verdicts import MERGE_AT

DIFFERENT = ("different", "contradiction")


@dataclass(frozen=True)
class Judged:
    pair: Pair
    cosine: float
    found: tuple[Difference, ...]
    unattended: bool  # pair_judgment(...).unattended_merge
    learned: float = 0.0  # the pair judge's 1 - P(same)
    verdict: str = "same"  # the pair judge's most likely class

    @property
    def flagged(self) -> bool:
        return bool(self.found)


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} = {100 * part / whole:.1f}%" if whole else "0/0"


def _flagged_share(rows: list[Judged], t: float) -> str:
    """The share of ``rows`` flagged, of all of them / of those reaching the queue."""
    queued = [r for r in rows if r.cosine >= t]
    everywhere = _share(sum(r.flagged for r in rows), len(rows))
    return f"{everywhere} / {_share(sum(r.flagged for r in queued), len(queued))}"


def figures(rows: list[Judged], t: float) -> dict[str, str]:
    judged = [r for r in rows if r.pair.label != "detail"]
    dup = [r for r in judged if r.pair.label == "dup"]
    offered = [r for r in judged if r.cosine >= t and not r.flagged]
    above = [r for r in judged if r.cosine >= t]
    out = {}
    for name, predicted in (("judgment", offered), ("threshold alone", above)):
        tp = sum(r.pair.label == "dup" for r in predicted)
        p = tp / len(predicted) if predicted else 0.0
        rec = tp / len(dup) if dup else 0.0
        f1 = 2 * p * rec / (p + rec) if p + rec else 0.0
        out[f"duplicate P / R / F1 ({name})"] = f"{p:.3f} / {rec:.3f} / {f1:.3f}"
    diff_q = [r for r in above if r.pair.label in DIFFERENT]
    out["different facts reaching the queue"] = _share(
        len(diff_q), sum(r.pair.label in DIFFERENT for r in judged)
    )
    out["of those, unflagged (target <= 10%)"] = _share(
        sum(not r.flagged for r in diff_q), len(diff_q)
    )
    contra = [r for r in judged if r.pair.label == "contradiction"]
    neg = [r for r in contra if r.pair.negation]
    out["contradictions flagged (all / in queue)"] = _flagged_share(contra, t)
    out["negation contradictions flagged (all / in queue; target >= 90%)"] = _flagged_share(neg, t)
    out["  of them marked a contradiction"] = _share(
        sum(any(d.contradiction for d in r.found) for r in neg), len(neg)
    )
    dup_q = [r for r in dup if r.cosine >= t]
    out["duplicates in the queue falsely flagged (target <= 10%)"] = _share(
        sum(r.flagged for r in dup_q), len(dup_q)
    )
    out["duplicates falsely flagged, all"] = _share(sum(r.flagged for r in dup), len(dup))
    return out


def auto_figures(rows: list[Judged], t: float) -> dict[str, str]:
    diff = [r for r in rows if r.pair.label in DIFFERENT]
    above = [r for r in diff if r.cosine >= t]
    dup = [r for r in rows if r.pair.label == "dup"]
    return {
        "different-fact pairs merged (flagged never merged; target 0)": _share(
            sum(not r.flagged for r in above), len(diff)
        ),
        "different-fact pairs merged if every pair above were merged": _share(
            len(above), len(diff)
        ),
        "duplicates merged": _share(sum(r.cosine >= t and not r.flagged for r in dup), len(dup)),
        "different-fact pairs merged if only copies are (no flag, same words in order)": _share(
            sum(r.unattended for r in above), len(diff)
        ),
        "duplicates merged so": _share(sum(r.cosine >= t and r.unattended for r in dup), len(dup)),
        "highest cosine of an unflagged different-fact pair (a threshold above it merges none)": (
            f"{max((r.cosine for r in diff if not r.flagged), default=0.0):.3f}"
        ),
    }


Flagger = Callable[["Judged"], bool]


def flaggers(threshold: float) -> dict[str, Flagger]:
    """Who flags a pair: the rules, the learned model at ``threshold``, either."""
    return {
        "rules": lambda r: r.flagged,
        f"judge (1 - P(same) >= {threshold:g})": lambda r: r.learned >= threshold,
        "rules + judge": lambda r: r.flagged or r.learned >= threshold,
    }


def targets(rows: list[Judged], t: float, auto_t: float, threshold: float) -> list[str]:
    """Issue 34's targets on ``rows``, each with its figure and whether it is met, for the
    rules' flags, the judge's and both together (issue 24's negation target beside them)."""
    judged = [r for r in rows if r.pair.label != "detail"]
    diff_q = [r for r in judged if r.pair.label in DIFFERENT and r.cosine >= t]
    neg = [r for r in judged if r.pair.negation]
    contra = [r for r in judged if r.pair.label == "contradiction"]
    diff_all = [r for r in judged if r.pair.label in DIFFERENT]
    dup_q = [r for r in judged if r.pair.label == "dup" and r.cosine >= t]
    auto = [r for r in judged if r.pair.label in DIFFERENT and r.cosine >= auto_t]
    n_diff = sum(r.pair.label in DIFFERENT for r in judged)
    at_most_10 = (lambda x, n: x <= 0.10 * n, "at most 10%")
    rows_out: list[tuple[str, tuple[Callable[[int, int], bool], str], Callable[..., Any]]] = [
        (
            f"different-fact pairs reaching the queue (>= {t}) without a flag",
            at_most_10,
            lambda f, merged: (sum(not f(r) for r in diff_q), len(diff_q)),
        ),
        (
            "contradictions flagged (at any similarity)",
            (lambda x, n: x >= 0.95 * n, "at least 95%"),
            lambda f, merged: (sum(f(r) for r in contra), len(contra)),
        ),
        (
            "negation contradictions flagged (at any similarity)",
            (lambda x, n: x >= 0.90 * n, "at least 90%"),
            lambda f, merged: (sum(f(r) for r in neg), len(neg)),
        ),
        (
            f"true duplicates in the queue (>= {t}) falsely flagged",
            at_most_10,
            lambda f, merged: (sum(f(r) for r in dup_q), len(dup_q)),
        ),
        (
            f"different-fact pairs auto-consolidation merges at {auto_t} (flagged pairs never)",
            (lambda x, n: x == 0, "none"),
            lambda f, merged: (sum(not f(r) for r in auto), n_diff),
        ),
        (
            "the same, auto-consolidation merging only copies (no flag, same words in order)",
            (lambda x, n: x == 0, "none"),
            lambda f, merged: (sum(r.unattended and not f(r) for r in auto), n_diff),
        ),
        (
            "auto-consolidation merging only copies, at every similarity (with the judge: "
            f"copies it calls the same at P >= {MERGE_AT})",
            (lambda x, n: x == 0, "none"),
            lambda f, merged: (sum(merged(r) for r in diff_all), n_diff),
        ),
    ]
    who = flaggers(threshold)
    out = [
        "| target | goal | " + " | ".join(f"{name} | met" for name in who) + " |",
        "| --- | --- |" + " --- | --- |" * len(who),
    ]
    for name, (ok, goal), count in rows_out:
        cells = []
        for who_name, f in who.items():
            part, whole = count(f, _merges(who_name))
            cells.append(f"{_share(part, whole)} | {'yes' if ok(part, whole) else 'no'}")
        out.append(f"| {name} | {goal} | " + " | ".join(cells) + " |")
    return out


def _merges(who: str) -> Callable[[Judged], bool]:
    """What auto-consolidation merges when ``who`` judges: the rules' copies; with the
    judge, the copies it calls the same fact at P(same) >= MERGE_AT."""
    if who == "rules":
        return lambda r: r.unattended
    return lambda r: r.unattended and 1 - r.learned >= MERGE_AT


def _flag(r: Judged, threshold: float, rules: bool) -> bool:
    return (rules and r.flagged) or r.learned >= threshold


def learned_curve(rows: list[Judged], t: float, chosen: float) -> list[str]:
    """In the queue, at a few thresholds of the learned model: different-fact pairs left
    unflagged and duplicates falsely flagged, by the model alone and with the rules."""
    diff_q = [r for r in rows if r.pair.label in DIFFERENT and r.cosine >= t]
    dup_q = [r for r in rows if r.pair.label == "dup" and r.cosine >= t]
    out = [
        "| threshold | model alone: different facts unflagged | duplicates flagged "
        "| rules + model: different facts unflagged | duplicates flagged |",
        "| ---: | ---: | ---: | ---: | ---: |",
    ]
    for th in sorted({0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98, chosen}):
        cells = []
        for rules in (False, True):
            cells += [
                _share(sum(not _flag(r, th, rules) for r in diff_q), len(diff_q)),
                _share(sum(_flag(r, th, rules) for r in dup_q), len(dup_q)),
            ]
        mark = " (chosen)" if abs(th - chosen) < 1e-9 else ""
        out.append(f"| {th:g}{mark} | " + " | ".join(cells) + " |")
    return out


def learned_auc(rows: list[Judged], t: float) -> str:
    """AUC of the model's probability (and of 1 - cosine) between different facts and
    duplicates in the queue that the rules leave unflagged."""
    q = [r for r in rows if r.cosine >= t and not r.flagged and r.pair.label != "detail"]
    pos = [r for r in q if r.pair.label in DIFFERENT]
    neg = [r for r in q if r.pair.label == "dup"]

    def auc(score: Callable[[Judged], float]) -> float:
        a, b = np.array([score(r) for r in pos]), np.array([score(r) for r in neg])
        if not len(a) or not len(b):
            return float("nan")
        above = (a[:, None] > b[None, :]).sum() + 0.5 * (a[:, None] == b[None, :]).sum()
        return float(above / (len(a) * len(b)))

    return (
        f"AUC among the {len(q)} queue pairs the rules leave unflagged ({len(pos)} different "
        f"facts, {len(neg)} duplicates): model {auc(lambda r: r.learned):.3f}, "
        f"1 - cosine {auc(lambda r: -r.cosine):.3f}"
    )


def kind_table(rows: list[Judged], t: float) -> list[str]:
    """Per kind, among pairs reaching the queue: the different-fact pairs it flags (help),
    the duplicates it flags (cost), and those it alone flags."""
    lines = [
        "| kind | different facts flagged | alone | duplicates flagged | alone |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    queued = [r for r in rows if r.cosine >= t]
    kinds = sorted({d.kind for r in queued for d in r.found})
    for kind in kinds:
        counts: Counter[str] = Counter()
        for r in queued:
            ks = {d.kind for d in r.found}
            if kind not in ks:
                continue
            group = "diff" if r.pair.label in DIFFERENT else r.pair.label
            counts[group] += 1
            if ks == {kind}:
                counts[group + "-alone"] += 1
        cells = (counts[k] for k in ("diff", "diff-alone", "dup", "dup-alone"))
        lines.append(f"| {kind} | " + " | ".join(map(str, cells)) + " |")
    return lines


def examples(rows: list[Judged], t: float, label: str, flagged: bool, n: int) -> list[str]:
    picked = [r for r in rows if r.pair.label == label and r.cosine >= t and r.flagged == flagged]
    out = []
    for r in picked[:n]:
        found = "; ".join(f"{d.kind}: {'/'.join(d.left)} | {'/'.join(d.right)}" for d in r.found)
        out.append(f"  {r.cosine:.3f} [{r.pair.corpus}] {r.pair.left!r} / {r.pair.right!r} {found}")
    return out


def verdict_table(rows: list[Judged]) -> list[str]:
    """How many pairs of each label get each of the judge's verdicts (its most likely
    class), every similarity."""
    labels = sorted({r.pair.label for r in rows})
    verdicts = sorted({r.verdict for r in rows})
    out = [
        "| label | " + " | ".join(verdicts) + " |",
        "| --- |" + " ---: |" * len(verdicts),
    ]
    for label in labels:
        counts = Counter(r.verdict for r in rows if r.pair.label == label)
        out.append(f"| {label} | " + " | ".join(str(counts[v]) for v in verdicts) + " |")
    return out
