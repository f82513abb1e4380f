"""The labelled sentence pairs of the judgment benchmark (bench/judgment.py), read from
public repositories that the search tool's ``fetch`` brought to this machine, checked
against the sha256 sums below, and written to ``var/judgment/pairs.tsv``.

Only train and dev splits are read: the test splits are held out from this project.
Nothing of these corpora is committed (their licences do not all allow redistribution, and
fetched material stays out of the repository): this script and the checksums are.

- MRPC (Dolan & Brockett 2005), paraphrase yes / no: brmson/dataset-sts
  ``data/para/msr/msr-para-{train,val}.tsv`` (the official train split, its last 500 pairs
  moved to val); Microsoft Research Paraphrase Corpus licence (``LICENCE.html`` there).
- STS-B (Cer et al. 2017), similarity 0-5: eduardofv/sts_eval
  ``data/stsbenchmark/sts-{train,dev}.csv``; scores CC BY-SA 4.0, texts under their
  sources' licences (``LICENSE.txt`` there).
- SICK (Marelli et al. 2014), entailment, contradiction, relatedness:
  kkalouli/SICK-processing ``SICK.txt``, its TRAIN (train) and TRIAL (dev) rows; CC BY-NC-SA
  3.0.

Labels, one per pair:

- ``dup`` (the same fact): MRPC 1; STS-B score >= 4; SICK entailment both ways.
- ``different`` (another fact): MRPC 0; STS-B score <= 3; SICK neutral both ways.
- ``contradiction``: SICK with a contradiction either way. ``negation`` marks those whose
  texts differ in a negation word (the benchmark's own word list, not the module's).
- ``detail`` (one text says more, no other fact): SICK entailment one way only; left out
  of the precision / recall figures and counted on its own.
- STS-B pairs scored above 3 and below 4 are left out (half the same, half not).

Sampling: every split keeps at most ``--per-split`` pairs (seeded), all contradictions
first, so the negation figures rest on every pair the split has.

    .venv/bin/python bench/judgment_data.py --mirror /work/.mirror
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import random
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "var" / "judgment" / "pairs.tsv"


@dataclass(frozen=True)
class Source:
    repo: str  # owner/name
    path: str
    sha256: str


SOURCES = {
    "mrpc-train": Source(
        "brmson/dataset-sts",
        "data/para/msr/msr-para-train.tsv",
        "446b9a5fa4e8d526b99f1d635f036f89063749783f5d3464ee8c1879724d406d",
    ),
    "mrpc-dev": Source(
        "brmson/dataset-sts",
        "data/para/msr/msr-para-val.tsv",
        "7e5d0ee4ec392b062af73c7cffe82f0725e5b08f6bfdf0915f31bbc470b8bacf",
    ),
    "stsb-train": Source(
        "eduardofv/sts_eval",
        "data/stsbenchmark/sts-train.csv",
        "0f71910b59aa1ad973c5897f0791f3b0965a92b8f82b1a95f3eea9f4162fda82",
    ),
    "stsb-dev": Source(
        "eduardofv/sts_eval",
        "data/stsbenchmark/sts-dev.csv",
        "5d7e944d8b02734b07bfdb5df67db3420c64bed153fcaa1ba47ad03480cf4234",
    ),
    "sick": Source(
        "kkalouli/SICK-processing",
        "SICK.txt",
        "1539c2d059809b5bd40694e26d8121cc85b6b496f91c7b40f2fc83bbd7dcd957",
    ),
}

NEGATION = re.compile(
    r"\b(?:not|no|never|nobody|none|nothing|nowhere|neither|nor|without|cannot)\b|n't\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Pair:
    corpus: str
    split: str  # train | dev
    label: str  # dup | different | contradiction | detail
    negation: bool
    left: str
    right: str


def read_source(mirror: Path, source: Source) -> str:
    """The file's text at the snapshot's HEAD, after its checksum matched."""
    folder = mirror / source.repo.replace("/", "+") / "repo"
    git_dir = folder / ".git" if (folder / ".git").is_dir() else folder
    if not git_dir.is_dir():
        sys.exit(f"{source.repo} is not fetched: fetch github:{source.repo} first ({folder})")
    data = subprocess.run(
        ["git", "--git-dir", str(git_dir), "show", f"HEAD:{source.path}"],
        capture_output=True,
        check=True,
    ).stdout
    digest = hashlib.sha256(data).hexdigest()
    if digest != source.sha256:
        sys.exit(f"{source.repo}:{source.path} has sha256 {digest}, expected {source.sha256}")
    return data.decode("utf-8-sig")


def _negation_differs(a: str, b: str) -> bool:
    return len(NEGATION.findall(a)) != len(NEGATION.findall(b))


def mrpc(text: str, split: str) -> list[Pair]:
    rows = csv.reader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE)
    next(rows)
    return [
        Pair("mrpc", split, "dup" if r[0] == "1" else "different", False, r[3], r[4])
        for r in rows
        if len(r) >= 5
    ]


def stsb(text: str, split: str) -> list[Pair]:
    pairs = []
    for line in text.splitlines():
        cols = line.split("\t")
        if len(cols) < 7:
            continue
        score = float(cols[4])
        label = "dup" if score >= 4 else "different" if score <= 3 else None
        if label:
            pairs.append(Pair("stsb", split, label, False, cols[5], cols[6]))
    return pairs


def sick(text: str) -> list[Pair]:
    rows = csv.DictReader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE)
    splits = {"TRAIN": "train", "TRIAL": "dev"}  # TEST is held out
    pairs = []
    for r in rows:
        split = splits.get((r.get("SemEval_set") or "").strip())
        if split is None:
            continue
        ab, ba = r["entailment_AB"], r["entailment_BA"]
        if "contradicts" in ab or "contradicts" in ba:
            label = "contradiction"
        elif "entails" in ab and "entails" in ba:
            label = "dup"
        elif "entails" in ab or "entails" in ba:
            label = "detail"
        else:
            label = "different"
        a, b = r["sentence_A"], r["sentence_B"]
        negation = label == "contradiction" and _negation_differs(a, b)
        pairs.append(Pair("sick", split, label, negation, a, b))
    return pairs


def sample(pairs: list[Pair], limit: int, seed: int) -> list[Pair]:
    """At most ``limit`` pairs, every contradiction kept (seeded, order stable)."""
    rng = random.Random(seed)
    first = [p for p in pairs if p.label == "contradiction"][:limit]
    rest = [p for p in pairs if p.label != "contradiction"]
    rng.shuffle(rest)
    return first + rest[: max(0, limit - len(first))]


def load_all(mirror: Path, per_split: int, seed: int) -> list[Pair]:
    groups: dict[tuple[str, str], list[Pair]] = {}
    for split in ("train", "dev"):
        groups[("mrpc", split)] = mrpc(read_source(mirror, SOURCES[f"mrpc-{split}"]), split)
        groups[("stsb", split)] = stsb(read_source(mirror, SOURCES[f"stsb-{split}"]), split)
    for p in sick(read_source(mirror, SOURCES["sick"])):
        groups.setdefault(("sick", p.split), []).append(p)
    out: list[Pair] = []
    for key in sorted(groups):
        out += sample(groups[key], per_split, seed)
    return out


def write(pairs: list[Pair], path: Path = OUT) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, delimiter="\t", quoting=csv.QUOTE_MINIMAL)
        w.writerow(["corpus", "split", "label", "negation", "left", "right"])
        for p in pairs:
            w.writerow([p.corpus, p.split, p.label, int(p.negation), p.left, p.right])


def read(path: Path = OUT) -> list[Pair]:
    with path.open(encoding="utf-8", newline="") as f:
        rows = csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_MINIMAL)
        return [
            Pair(r["corpus"], r["split"], r["label"], r["negation"] == "1", r["left"], r["right"])
            for r in rows
        ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--per-split", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=24)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    pairs = load_all(args.mirror, args.per_split, args.seed)
    write(pairs, args.out)
    counts: dict[tuple[str, str, str], int] = {}
    for p in pairs:
        counts[(p.corpus, p.split, p.label)] = counts.get((p.corpus, p.split, p.label), 0) + 1
    for key in sorted(counts):
        print(*key, counts[key])
    print(f"{len(pairs)} pairs -> {args.out}")


if __name__ == "__main__":
    main()
