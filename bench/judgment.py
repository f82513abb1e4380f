"""Judgment benchmark: what qqweb's near-duplicate review and auto-consolidation would do
with public, human-labelled sentence pairs (bench/judgment_data.py says which, and how
they are labelled). Run on purpose: ``make bench-judgment``.

Every pair is embedded with qqweb's own embedder (the configured model, numpy engine; the
vectors cached in ``var/judgment/embeddings.npz`` by text, so a rerun only embeds what is
new) and read by ``qqweb.lib.differences``. At a threshold ``t``:

- a pair *reaches the queue* when its cosine is >= t; it is *offered as a duplicate* when
  it reaches the queue with no flag (a flagged pair is a possible update or a
  contradiction: the curator is told which values differ);
- precision / recall / F1 of "duplicate" count the pairs offered as duplicates against
  the pairs labelled ``dup`` (``detail`` pairs are left out); the same for the threshold
  alone (no flags) beside it;
- "different facts unflagged" is the share of labelled different-fact pairs (different or
  contradiction) reaching the queue with no flag: the ones that look like copies;
- "contradictions flagged" is the share of labelled contradictions with a flag, and
  "negations flagged" the same for contradictions whose texts differ in a negation word,
  of all of them and of those reaching the queue;
- "duplicates falsely flagged" is the share of labelled duplicates reaching the queue that
  carry a flag;
- auto-consolidation merges a pair >= its threshold only when it carries no flag, so the
  different-fact pairs it would merge are those above that threshold with no flag; the
  count without that rule (every pair above) is printed beside it.

The targets are given three times: for the rules' flags, for the learned pair model's
(memory_app/notes/lib/pair_model.py, a pair flagged when its probability of a different fact is
at least the threshold stored with its weights) and for both together; the model's AUC and
its trade-off at a few thresholds follow. The model and its threshold come from
bench/judgment_train.py, on train only.

Figures are per split; the rules were tuned on train, dev is what is reported. Results
go to stdout and, with ``--markdown``, to bench/results/judgment.md.

    .venv/bin/python bench/judgment_data.py    # once: extract the pairs
    .venv/bin/python bench/judgment.py --markdown
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "qqweb.settings")

import django

django.setup()

from django.conf import settings
from judgment_data import OUT as PAIRS
from judgment_data import Pair, read

from memory_app.notes.job_params import AutoConsolidationParams
from memory_app.notes.lib.embeddings import SentenceTransformerEmbedder
from memory_app.notes.lib.pair_model import pair_features, pair_model
from qqweb.lib.differences import Difference, pair_judgment

CACHE = ROOT / "var" / "judgment" / "embeddings.npz"
DIFFERENT = ("different", "contradiction")


def _key(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def embed_all(texts: list[str], model: str, cache: Path = CACHE) -> dict[str, np.ndarray]:
    """Unit vectors of ``texts`` by text, from the cache where it has them (same model)."""
    known: dict[str, np.ndarray] = {}
    if cache.exists():
        data = np.load(cache, allow_pickle=False)
        if str(data["model"]) == model:
            known = dict(zip(data["keys"].tolist(), data["vectors"], strict=True))
    todo = sorted({t for t in texts if _key(t) not in known})
    if todo:
        started = time.perf_counter()
        embedder = SentenceTransformerEmbedder(model, engine="numpy")
        for i in range(0, len(todo), 512):
            chunk = todo[i : i + 512]
            for text, vector in zip(chunk, embedder.embed(chunk), strict=True):
                known[_key(text)] = vector
            print(f"  embedded {min(i + 512, len(todo))}/{len(todo)}", file=sys.stderr)
        print(f"  {len(todo)} texts in {time.perf_counter() - started:.0f} s", file=sys.stderr)
        cache.parent.mkdir(parents=True, exist_ok=True)
        keys = sorted(known)
        np.savez(
            cache,
            model=np.array(model),
            keys=np.array(keys),
            vectors=np.stack([known[k] for k in keys]),
        )
    out = {}
    for t in texts:
        v = known[_key(t)].astype(np.float32)
        out[t] = v / (np.linalg.norm(v) or 1.0)
    return out


@dataclass(frozen=True)
class Judged:
    pair: Pair
    cosine: float
    found: tuple[Difference, ...]
    unattended: bool  # pair_judgment(...).unattended_merge
    learned: float = 0.0  # memory.pair_model's probability of a different fact

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
        f"learned model (p >= {threshold:.2f})": lambda r: r.learned >= threshold,
        "rules + learned": lambda r: r.flagged or r.learned >= threshold,
    }


def targets(rows: list[Judged], t: float, auto_t: float, threshold: float) -> list[str]:
    """Issue 24's four targets on ``rows``, each with its figure and whether it is met, for
    the rules' flags, the learned model's and both together."""
    judged = [r for r in rows if r.pair.label != "detail"]
    diff_q = [r for r in judged if r.pair.label in DIFFERENT and r.cosine >= t]
    neg = [r for r in judged if r.pair.negation]
    dup_q = [r for r in judged if r.pair.label == "dup" and r.cosine >= t]
    auto = [r for r in judged if r.pair.label in DIFFERENT and r.cosine >= auto_t]
    n_diff = sum(r.pair.label in DIFFERENT for r in judged)
    at_most_10 = (lambda x, n: x <= 0.10 * n, "at most 10%")
    rows_out: list[tuple[str, tuple[Callable[[int, int], bool], str], Callable]] = [
        (
            f"different-fact pairs reaching the queue (>= {t}) without a flag",
            at_most_10,
            lambda f: (sum(not f(r) for r in diff_q), len(diff_q)),
        ),
        (
            "negation contradictions flagged (at any similarity)",
            (lambda x, n: x >= 0.90 * n, "at least 90%"),
            lambda f: (sum(f(r) for r in neg), len(neg)),
        ),
        (
            f"true duplicates in the queue (>= {t}) falsely flagged",
            at_most_10,
            lambda f: (sum(f(r) for r in dup_q), len(dup_q)),
        ),
        (
            f"different-fact pairs auto-consolidation merges at {auto_t} (flagged pairs never)",
            (lambda x, n: x == 0, "none"),
            lambda f: (sum(not f(r) for r in auto), n_diff),
        ),
        (
            "the same, auto-consolidation merging only copies (no flag, same words in order)",
            (lambda x, n: x == 0, "none"),
            lambda f: (sum(r.unattended and not f(r) for r in auto), n_diff),
        ),
    ]
    who = flaggers(threshold)
    out = [
        "| target | goal | " + " | ".join(f"{name} | met" for name in who) + " |",
        "| --- | --- |" + " --- | --- |" * len(who),
    ]
    for name, (ok, goal), count in rows_out:
        cells = []
        for f in who.values():
            part, whole = count(f)
            cells.append(f"{_share(part, whole)} | {'yes' if ok(part, whole) else 'no'}")
        out.append(f"| {name} | {goal} | " + " | ".join(cells) + " |")
    return out


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
    for th in sorted({0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, round(chosen, 2)}):
        cells = []
        for rules in (False, True):
            cells += [
                _share(sum(not _flag(r, th, rules) for r in diff_q), len(diff_q)),
                _share(sum(_flag(r, th, rules) for r in dup_q), len(dup_q)),
            ]
        mark = " (chosen)" if abs(th - chosen) < 1e-9 else ""
        out.append(f"| {th:.2f}{mark} | " + " | ".join(cells) + " |")
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


def machine() -> dict[str, str]:
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": commit + (" (with uncommitted changes)" if dirty else ""),
        "load": " ".join(f"{x:.2f}" for x in os.getloadavg()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--splits", default="train,dev")
    parser.add_argument("--examples", type=int, default=0, help="print N examples of each miss")
    parser.add_argument("--markdown", action="store_true", help="write bench/results/judgment.md")
    args = parser.parse_args()
    if not PAIRS.exists():
        sys.exit(f"{PAIRS} is missing: run bench/judgment_data.py first")
    pairs = read()
    model = settings.QQ_EMBEDDING_MODEL
    vectors = embed_all([t for p in pairs for t in (p.left, p.right)], model)
    started = time.perf_counter()
    judged = []
    learned_s = 0.0
    learned = pair_model()
    for p in pairs:
        judgment = pair_judgment(p.left, p.right)
        u, v = vectors[p.left], vectors[p.right]
        cosine = float(u @ v)
        tick = time.perf_counter()
        row = pair_features(u, v, p.left, p.right, judgment.differences)
        probability = float(learned.probabilities(row)[0])
        learned_s += time.perf_counter() - tick
        judged.append(
            Judged(p, cosine, judgment.differences, judgment.unattended_merge, probability)
        )
    rules_ms = 1000 * (time.perf_counter() - started - learned_s) / max(1, len(pairs))
    learned_ms = 1000 * learned_s / max(1, len(pairs))
    queue_t = float(settings.QQ_DEDUP_THRESHOLD)
    auto_ts = sorted({float(AutoConsolidationParams.model_validate({}).threshold), 0.95})
    info = machine()
    out = [
        "# Judgment benchmark",
        "",
        f"Run {info['date']}, commit {info['commit']}, load average {info['load']}; "
        f"model {model} (numpy engine); {len(pairs)} pairs; "
        f"the rules take {rules_ms:.2f} ms a pair, the learned model {learned_ms:.2f} ms more.",
        f"Queue threshold QQ_DEDUP_THRESHOLD = {queue_t}; "
        f"auto-consolidation at {', '.join(map(str, auto_ts))}.",
    ]
    reported = "dev" if "dev" in args.splits.split(",") else args.splits.split(",")[0]
    out += ["", f"## Targets on {reported} (all corpora)", ""]
    dev = [r for r in judged if r.pair.split == reported]
    out += targets(dev, queue_t, max(auto_ts), learned.threshold)
    out += [
        "",
        f"## The learned pair model on {reported}",
        "",
        f"memory_app/notes/lib/pair_model.npz: {learned.about}.",
        "",
        f"On {reported}: {learned_auc(dev, queue_t)}.",
        "",
        f"In the queue (>= {queue_t}), by threshold of the model's probability:",
        "",
    ]
    out += learned_curve(dev, queue_t, learned.threshold)
    for split in args.splits.split(","):
        rows = [r for r in judged if r.pair.split == split]
        labels = Counter(f"{r.pair.corpus} {r.pair.label}" for r in rows)
        out += [
            "",
            f"## {split}",
            "",
            "Pairs: " + ", ".join(f"{k} {v}" for k, v in sorted(labels.items())),
        ]
        for corpus in ("all", "mrpc", "stsb", "sick"):
            part = rows if corpus == "all" else [r for r in rows if r.pair.corpus == corpus]
            out += [
                "",
                f"### {split}, {corpus}, queue at {queue_t}",
                "",
                "| figure | value |",
                "| --- | --- |",
            ]
            out += [f"| {k} | {v} |" for k, v in figures(part, queue_t).items()]
            for t in auto_ts:
                out += [
                    f"| auto-consolidation at {t}: {k} | {v} |"
                    for k, v in auto_figures(part, t).items()
                ]
        out += ["", f"### {split}: what each kind flags in the queue (at {queue_t})", ""]
        out += kind_table(rows, queue_t)
        if args.examples:
            for label, flagged in (("different", False), ("contradiction", False), ("dup", True)):
                out += ["", f"{split}: {label}, flagged={flagged}:"]
                out += examples(rows, queue_t, label, flagged, args.examples)
    text = "\n".join(out) + "\n"
    print(text)
    if args.markdown:
        path = ROOT / "bench" / "results" / "judgment.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        print(f"written to {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
