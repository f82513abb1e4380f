"""The training pairs of the pair judge (qqweb/lib/judge, trained by bench/judge_train.py):
public labelled pairs whose licences allow shipping weights learned from them, and pairs
generated here from their sentences, each with one of the judge's classes
(:data:`qqweb.lib.judge.CLASSES`). Train splits only: the dev splits of every corpus stay
for ``make bench-judgment``, the test splits are never read.

Sources (docs/judge-model.md says why each is allowed):

- STS-B train (eduardofv/sts_eval ``data/stsbenchmark/sts-train.csv``, the scores CC BY-SA
  4.0), without its MSRpar rows (those texts are MRPC's, whose licence is research only).
  Score >= 4: ``same``; score <= 3: ``different`` (STS-B's 3 is "roughly equivalent, but
  some important information differs"); the pairs between are left out, as
  bench/judgment_data.py labels them.
- Pairs generated from the STS-B train sentences and from a small vocabulary of
  agent-memory facts written here (:func:`memory_facts`): negations, negators outside any
  word list ("is unable to", "has yet to", "no longer"), antonyms (``contradiction``);
  another word of the same kind ("film" / "book"), changed numbers and years, swapped
  roles, active or passive (``different``); a detail added to one side (``left_more`` /
  ``right_more``) or a different detail to each (``each_more``); and the same text
  re-cased, re-punctuated, contracted, in the passive, with a synonym or with its
  sentences reordered (``same``).

MRPC and SICK (research-only and CC BY-NC-SA licences) are never trained on: they are
what the judge is measured on, with STS-B dev.

Every pair is also written with its sides swapped (``left_more`` and ``right_more``
swap with them), so the judge learns no side. Seeded; writes ``var/judge/train.tsv``.

    .venv/bin/python bench/judge_data.py --mirror /work/.mirror
"""

from __future__ import annotations

import argparse
import csv
import random
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from judgment_data import SOURCES, read_source

OUT = ROOT / "var" / "judge" / "train.tsv"
SWAP = {"left_more": "right_more", "right_more": "left_more"}

from judge_generate import Example, generated, memory_facts

# -- the STS-B rows --------------------------------------------------------------------------


def stsb_rows(text: str) -> Iterator[tuple[str, float, str, str]]:
    for line in text.splitlines():
        cols = line.split("\t")
        if len(cols) >= 7:
            yield cols[1], float(cols[4]), cols[5].strip(), cols[6].strip()


def stsb_examples(text: str) -> tuple[list[Example], list[str], list[tuple[str, str]]]:
    """Labelled STS-B pairs, the sentences to generate from, and its ``same`` pairs."""
    out, sentences, same = [], [], []
    for genre, score, a, b in stsb_rows(text):
        if genre == "MSRpar":
            continue
        sentences += [a, b]
        if score >= 4:
            out.append(Example(a, b, "same", "stsb"))
            same.append((a, b))
        elif score <= 3.0:
            out.append(Example(a, b, "different", "stsb"))
    return out, sorted(set(sentences)), same


def build(mirror: Path, seed: int, per_kind: int, memory: int) -> list[Example]:
    rng = random.Random(seed)
    text = read_source(mirror, SOURCES["stsb-train"])
    labelled, sentences, same = stsb_examples(text)
    examples = labelled + generated(sentences, same, rng, per_kind) + memory_facts(rng, memory)
    both = examples + [
        Example(e.right, e.left, SWAP.get(e.label, e.label), e.origin) for e in examples
    ]
    rng.shuffle(both)
    return both


def write(examples: list[Example], path: Path = OUT) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, delimiter="\t", quoting=csv.QUOTE_MINIMAL)
        w.writerow(["label", "origin", "left", "right"])
        for e in examples:
            w.writerow([e.label, e.origin, e.left, e.right])


def read(path: Path = OUT) -> list[Example]:
    with path.open(encoding="utf-8", newline="") as f:
        rows = csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_MINIMAL)
        return [Example(r["left"], r["right"], r["label"], r["origin"]) for r in rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--per-kind", type=int, default=1200)
    parser.add_argument("--memory", type=int, default=2500)
    args = parser.parse_args()
    examples = build(args.mirror, args.seed, args.per_kind, args.memory)
    write(examples)
    for (label, origin), n in sorted(Counter((e.label, e.origin) for e in examples).items()):
        print(f"{label:14} {origin:10} {n}")
    print(f"{len(examples)} examples -> {OUT}")


if __name__ == "__main__":
    main()
