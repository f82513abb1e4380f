"""Search alone against hnswlib/usearch: the app's vector index (memory-mapped segment +
masked rows + in-memory delta, ``memory/vector_search.py``) beside two HNSW libraries
from PyPI, one thread each, on the same vectors and queries.

    uv sync --extra dev --extra bench       # hnswlib and usearch (bench only)
    OMP_NUM_THREADS=1 .venv/bin/python bench/search_libs.py            # real + 100k + 1M
    OMP_NUM_THREADS=1 .venv/bin/python bench/search_libs.py --sizes 100000

Data sets:

- **MiniLM**: every distinct sentence of the judgment corpora's train and dev splits
  (``bench/judgment_data.py``: MRPC, STS-B, SICK from ``/work/.mirror``; 22k sentences),
  embedded with the app's all-MiniLM-L6-v2 numpy engine, the vectors cached by text in
  ``var/search_libs/embeddings.npz`` (the first run embeds them: about 8 minutes on 2
  cores; corpus text and vectors are never committed);
- **clustered**: the scale benches' generator (``bench/common.clustered``) at
  100k and 1M.

Queries: ``--held-out`` vectors kept out of the index, and ``--perturbed`` indexed ones
with noise added. Per index: build time, p50/p95 latency for k=10 and k=20, recall@10
against the exact float32 scan, memory, then the incremental update (1% new rows added,
1% deleted): its cost, and latency + recall after it (the app also after its fold).
The HNSW search breadth (``ef``) is the smallest of ``EFS`` that reaches recall@10 0.99
on the queries, as the app's probes are fixed to reach it. Every figure carries the
1-minute load average (the machine is shared). Results: ``bench/results/search_libs.json``
and ``.md``. Measured on this 2-core machine at load 6-10: MiniLM + 100k 13 minutes (the
libraries' one-thread builds: hnswlib 3 min, usearch 8 min at 100k); at 1M the app's build
takes 10-15 min and the libraries' builds grow about 12x (hnswlib ~35 min, usearch ~1.5 h
on one thread): ``--build-threads 2`` halves them, ``--only app`` leaves them out.

The data sets are drawn in ``bench/search_libs_data.py``, the three indexes sit behind one
interface in ``bench/search_libs_indexes.py``; this module measures them and writes the
results.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench import search_libs_indexes
from bench.common import Figure, load, sample
from bench.search_libs_data import Data, minilm, synthetic
from bench.search_libs_indexes import EF_CONSTRUCTION, App, Hnswlib, M, Usearch, libraries

EFS = (16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512)
OUT = ROOT / "bench" / "results"


@dataclass
class Result:
    index: str
    figures: dict[str, Figure] = field(default_factory=dict)
    notes: dict[str, Any] = field(default_factory=dict)


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def exact_top(
    vectors: np.ndarray, queries: np.ndarray, k: int, alive: np.ndarray | None = None
) -> list[set[int]]:
    """Row numbers of the exact top ``k`` of each query (rows not ``alive`` left out)."""
    out: list[set[int]] = []
    for start in range(0, len(queries), 64):
        scores = queries[start : start + 64] @ vectors.T
        if alive is not None:
            scores[:, ~alive] = -np.inf
        top = np.argpartition(-scores, k - 1, axis=1)[:, :k]
        out.extend(set(row.tolist()) for row in top)
    return out


def recall(found: Iterable[Iterable[int]], truth: list[set[int]]) -> float:
    hits = [len(set(f) & t) / len(t) for f, t in zip(found, truth, strict=True)]
    return float(np.mean(hits))


# --- measuring ----------------------------------------------------------------------------------


def latency(index: Any, queries: np.ndarray, k: int, rounds: int = 2) -> tuple[Figure, Figure]:
    i = iter(range(10**9))
    p50, p95 = sample(
        lambda: index.search(queries[next(i) % len(queries)], k), rounds * len(queries)
    )
    now = load()
    return Figure(p50, now), Figure(p95, now)


def recall_of(index: Any, queries: np.ndarray, truth: list[set[int]]) -> float:
    return recall((index.search(q, 10) for q in queries), truth)


def tune(index: Any, queries: np.ndarray, truth: list[set[int]]) -> tuple[int, float]:
    """The smallest ef of EFS with recall@10 >= 0.99 (the largest when none reaches it)."""
    for ef in EFS:
        index.set_ef(ef)
        got = recall_of(index, queries, truth)
        if got >= 0.99:
            return ef, got
    return ef, got


def measure(kind: Any, data: Data, report: Callable[[str], None]) -> Result:
    vectors, queries = data.vectors, data.queries
    n, dim = vectors.shape
    truth = exact_top(vectors, queries, 10)
    result = Result(kind.name)
    with tempfile.TemporaryDirectory(dir=ROOT / "var") as tmp:
        index = kind(dim, Path(tmp))
        before = rss_mb()
        t = time.perf_counter()
        index.build(vectors)
        result.figures["build"] = Figure((time.perf_counter() - t) * 1000, load())
        memory = index.memory() if isinstance(index, App) else f"{rss_mb() - before:.0f} MB RSS"
        result.notes["memory"] = memory
        if hasattr(index, "set_ef"):
            ef, _ = tune(index, queries, truth)
            result.notes["ef"] = ef
        result.notes["recall@10"] = round(recall_of(index, queries, truth), 4)
        result.notes["recall@10 held-out"] = round(
            recall_of(index, queries[: data.held_out], truth[: data.held_out]), 4
        )
        for k in (10, 20):
            p50, p95 = latency(index, queries, k)
            result.figures[f"k={k} p50"], result.figures[f"k={k} p95"] = p50, p95
        report(summary(result))

        # the update: 1% new rows, 1% of the old ones deleted
        rng = np.random.default_rng(5)
        gone = np.sort(rng.choice(n, len(data.extra), replace=False))
        t = time.perf_counter()
        index.add(n, data.extra)
        index.delete(gone)
        result.figures["update"] = Figure((time.perf_counter() - t) * 1000, load())
        alive = np.ones(n + len(data.extra), dtype=bool)
        alive[gone] = False
        truth = exact_top(np.vstack([vectors, data.extra]), queries, 10, alive)
        result.notes["recall@10 after update"] = round(recall_of(index, queries, truth), 4)
        p50, p95 = latency(index, queries, 10, rounds=1)
        result.figures["after update k=10 p50"], result.figures["after update k=10 p95"] = p50, p95
        report(summary(result, update=True))
        if isinstance(index, App):
            t = time.perf_counter()
            try:
                index.fold()
            except Exception as error:  # reported, not hidden: the table says the fold failed
                result.notes["fold failed"] = f"{type(error).__name__}: {error}"
                report(f"    {result.index}: the fold FAILED: {result.notes['fold failed']}")
                index.close()
                return result
            result.figures["fold"] = Figure((time.perf_counter() - t) * 1000, load())
            result.notes["recall@10 after fold"] = round(recall_of(index, queries, truth), 4)
            p50, p95 = latency(index, queries, 10, rounds=1)
            result.figures["after fold k=10 p50"], result.figures["after fold k=10 p95"] = p50, p95
            report(summary(result, update=True))
        index.close()
    return result


def text(figure: Figure) -> str:
    """Like ``Figure.text`` with two decimals below 10 ms (the libraries answer in 0.1 ms)."""
    if figure.ms is None or figure.ms >= 10:
        return figure.text()
    return f"{figure.ms:.2f} ms [load {figure.load:.1f}]"


def summary(result: Result, update: bool = False) -> str:
    f, notes = result.figures, result.notes
    if not update:
        ef = f", ef {notes['ef']}" if "ef" in notes else ""
        return (
            f"    {result.index}: build {text(f['build'])}; k=10 p50 {text(f['k=10 p50'])} "
            f"p95 {text(f['k=10 p95'])}; k=20 p50 {text(f['k=20 p50'])} p95 "
            f"{text(f['k=20 p95'])}; recall@10 {notes['recall@10']:.3f} (held-out "
            f"{notes['recall@10 held-out']:.3f}{ef}); {notes['memory']}"
        )
    line = (
        f"    {result.index} after +1%/-1%: update {text(f['update'])}; k=10 p50 "
        f"{text(f['after update k=10 p50'])} p95 {text(f['after update k=10 p95'])}; "
        f"recall@10 {notes['recall@10 after update']:.3f}"
    )
    if "fold" in f:
        line += (
            f"; fold {text(f['fold'])}, then p50 {text(f['after fold k=10 p50'])} "
            f"p95 {text(f['after fold k=10 p95'])}, recall@10 {notes['recall@10 after fold']:.3f}"
        )
    return line


# --- output -------------------------------------------------------------------------------------


def header() -> dict[str, str]:
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    import hnswlib
    import usearch

    return {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "commit": commit,
        "load": " ".join(f"{x:.2f}" for x in os.getloadavg()),
        "versions": f"hnswlib {hnswlib.__version__ if hasattr(hnswlib, '__version__') else '0.8'}"
        f", usearch {usearch.__version__}, numpy {np.__version__}",
        "settings": f"HNSW M={M}, ef_construction={EF_CONSTRUCTION}, one thread "
        f"(the libraries' builds: {search_libs_indexes.BUILD_THREADS})",
    }


def markdown(meta: dict[str, str], runs: dict[str, list[Result]]) -> str:
    lines = [
        "# Search alone against hnswlib/usearch",
        "",
        f"{meta['date']}, commit {meta['commit']}, load {meta['load']}; {meta['versions']}; "
        f"{meta['settings']}. Written by `bench/search_libs.py`. Each figure: "
        "time [1-minute load average].",
        "",
    ]
    for name, results in runs.items():
        lines += [
            f"## {name}",
            "",
            "| index | build | k=10 p50 | k=10 p95 | k=20 p50 | k=20 p95 | recall@10 "
            "| memory | update +1%/-1% | after: k=10 p50 | p95 | recall@10 |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for r in results:
            f, n = r.figures, r.notes
            ef = f" (ef {n['ef']})" if "ef" in n else ""
            lines.append(
                f"| {r.index}{ef} | {text(f['build'])} | {text(f['k=10 p50'])} "
                f"| {text(f['k=10 p95'])} | {text(f['k=20 p50'])} | {text(f['k=20 p95'])} "
                f"| {n['recall@10']:.3f} | {n['memory']} | {text(f['update'])} "
                f"| {text(f['after update k=10 p50'])} | {text(f['after update k=10 p95'])} "
                f"| {n['recall@10 after update']:.3f} |"
            )
            if "fold failed" in n:
                lines.append(f"| app's fold | failed: {n['fold failed']} | | | | | | | | | | |")
            if "fold" in f:
                lines.append(
                    f"| app after its fold | {text(f['fold'])} (the fold) "
                    f"| {text(f['after fold k=10 p50'])} | {text(f['after fold k=10 p95'])} "
                    f"| | | {n['recall@10 after fold']:.3f} | | | | | |"
                )
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100000,1000000", help="clustered sizes ('' for none)")
    parser.add_argument("--no-minilm", action="store_true", help="skip the real MiniLM vectors")
    parser.add_argument("--held-out", type=int, default=200)
    parser.add_argument("--perturbed", type=int, default=100)
    parser.add_argument("--only", default="app,hnswlib,usearch")
    parser.add_argument("--out", default="search_libs", help="results file name in bench/results")
    parser.add_argument(
        "--build-threads", type=int, default=1, help="threads for the libraries' builds"
    )
    args = parser.parse_args()
    search_libs_indexes.BUILD_THREADS = args.build_threads
    libraries()  # fail at once, with how to install them
    kinds = {"app": App, "hnswlib": Hnswlib, "usearch": Usearch}
    chosen = [kinds[k] for k in args.only.split(",")]
    sets: list[Callable[[], Data]] = []
    if not args.no_minilm:
        sets.append(lambda: minilm(args.held_out, args.perturbed, 7))
    for size in [int(s) for s in args.sizes.split(",") if s]:
        sets.append(functools.partial(synthetic, size, args.held_out, args.perturbed, 7))
    (ROOT / "var").mkdir(exist_ok=True)
    meta = header()
    print(f"search alone against hnswlib/usearch  [load {meta['load']}]", flush=True)
    runs: dict[str, list[Result]] = {}
    for make in sets:
        data = make()
        print(
            f"  {data.name}: {len(data.vectors):,} indexed, {len(data.queries)} queries "
            f"({data.held_out} held out)  [load {load():.1f}]",
            flush=True,
        )
        runs[data.name] = [measure(kind, data, lambda s: print(s, flush=True)) for kind in chosen]
        del data
        OUT.mkdir(parents=True, exist_ok=True)
        (OUT / f"{args.out}.json").write_text(
            json.dumps(
                {
                    **meta,
                    "runs": {
                        name: [
                            {
                                "index": r.index,
                                "figures": {
                                    k: {"ms": round(v.ms or 0, 3), "load": v.load}
                                    for k, v in r.figures.items()
                                },
                                **r.notes,
                            }
                            for r in results
                        ]
                        for name, results in runs.items()
                    },
                },
                indent=2,
            )
        )
        (OUT / f"{args.out}.md").write_text(markdown(meta, runs))
    print(f"  -> {OUT / f'{args.out}.md'}")


if __name__ == "__main__":
    main()
