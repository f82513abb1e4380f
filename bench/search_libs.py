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

from bench.common import Figure, clustered, load, sample
from memory_app.notes.lib.replica.follow import fold
from memory_app.notes.lib.replica.index import VectorIndex
from qqweb.lib.vectors import normalise

INSTALL = "hnswlib and usearch are bench-only: `uv sync --extra dev --extra bench` installs them"
CACHE = ROOT / "var" / "search_libs" / "embeddings.npz"
EFS = (16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512)
M = 16  # HNSW links per node, both libraries
EF_CONSTRUCTION = 128
OUT = ROOT / "bench" / "results"
BUILD_THREADS = 1  # the libraries' builds (--build-threads); queries and updates: one thread


@dataclass
class Data:
    name: str
    vectors: np.ndarray  # indexed rows, unit float32
    queries: np.ndarray  # held-out then perturbed
    held_out: int
    extra: np.ndarray  # rows the update adds


@dataclass
class Result:
    index: str
    figures: dict[str, Figure] = field(default_factory=dict)
    notes: dict[str, Any] = field(default_factory=dict)


def libraries() -> tuple[Any, Any]:
    try:
        import hnswlib
        import usearch.index
    except ImportError as error:
        sys.exit(f"{error}: {INSTALL}")
    return hnswlib, usearch.index


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


# --- the data ---------------------------------------------------------------------------------


def minilm(held_out: int, perturbed: int, seed: int) -> Data:
    import judgment_data
    from django.conf import settings
    from judgment import embed_all  # django set up there: the app's embedder and settings

    pairs = judgment_data.load_all(Path("/work/.mirror"), 10**9, 24)  # train + dev only
    texts = sorted({t for p in pairs for t in (p.left, p.right)})
    vectors = embed_all(texts, settings.QQ_EMBEDDING_MODEL, CACHE)
    matrix = normalise(np.stack([vectors[t] for t in texts]))
    return split(f"MiniLM {len(texts):,} sentences", matrix, held_out, perturbed, seed)


def synthetic(n: int, held_out: int, perturbed: int, seed: int) -> Data:
    extra = max(1, n // 100)
    matrix = clustered(n + held_out + extra, 384, seed=1)
    return split(f"clustered {n:,}", matrix, held_out, perturbed, seed, extra)


def split(
    name: str, matrix: np.ndarray, held_out: int, perturbed: int, seed: int, extra: int = 0
) -> Data:
    """Held-out queries, the rows the update adds and the indexed rows, drawn at random."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(matrix))
    extra = extra or max(1, (len(matrix) - held_out) // 101)
    held, added, kept = np.split(order, [held_out, held_out + extra])
    vectors = np.ascontiguousarray(matrix[np.sort(kept)])
    near = vectors[rng.integers(0, len(vectors), perturbed)]
    near = normalise(near + rng.normal(scale=0.02, size=near.shape).astype(np.float32))
    queries = np.ascontiguousarray(np.vstack([matrix[held], near]), dtype=np.float32)
    return Data(name, vectors, queries, held_out, np.ascontiguousarray(matrix[added]))


# --- the indexes, one interface -----------------------------------------------------------------


class App:
    name = "app (segment + delta)"

    def __init__(self, dim: int, directory: Path) -> None:
        self.index = VectorIndex(None, directory=directory)
        self.directory = directory

    def build(self, vectors: np.ndarray) -> None:
        ids = [str(i) for i in range(len(vectors))]
        self.index.add_vectors(ids, ["Key Topics"] * len(ids), vectors)

    def memory(self) -> str:
        size = sum(f.stat().st_size for f in self.directory.rglob("*.npy"))
        return f"{size / 2**20:.0f} MB mapped (shared by every process)"

    def search(self, query: np.ndarray, k: int) -> list[int]:
        return [int(h[0]) for h in self.index.search(query, limit=k).hits]

    def add(self, start: int, rows: np.ndarray) -> None:
        with self.index._lock:
            for i, row in enumerate(rows):
                self.index._put(
                    {"note_id": str(start + i), "section": "Key Topics", "embedding": row.tolist()}
                )

    def delete(self, rows: np.ndarray) -> None:
        with self.index._lock:
            for row in rows.tolist():
                self.index._forget(str(row))

    def fold(self) -> None:
        fold(self.index)

    def close(self) -> None:
        self.index.close()


class Hnswlib:
    name = "hnswlib"

    def __init__(self, dim: int, directory: Path) -> None:
        self.lib, _ = libraries()
        self.dim = dim

    def build(self, vectors: np.ndarray) -> None:
        self.index = self.lib.Index(space="ip", dim=self.dim)
        self.index.init_index(int(len(vectors) * 1.02) + 10, M=M, ef_construction=EF_CONSTRUCTION)
        self.index.set_num_threads(1)
        self.index.add_items(vectors, np.arange(len(vectors)), num_threads=BUILD_THREADS)

    def set_ef(self, ef: int) -> None:
        self.index.set_ef(ef)

    def search(self, query: np.ndarray, k: int) -> list[int]:
        labels, _ = self.index.knn_query(query, k=k, num_threads=1)
        return labels[0].tolist()

    def add(self, start: int, rows: np.ndarray) -> None:
        self.index.add_items(rows, np.arange(start, start + len(rows)), num_threads=1)

    def delete(self, rows: np.ndarray) -> None:
        for row in rows.tolist():
            self.index.mark_deleted(row)

    def close(self) -> None:
        del self.index


class Usearch:
    name = "usearch"

    def __init__(self, dim: int, directory: Path) -> None:
        _, self.lib = libraries()
        self.dim = dim

    def build(self, vectors: np.ndarray) -> None:
        self.index = self.lib.Index(
            ndim=self.dim,
            metric="ip",
            dtype="f32",
            connectivity=M,
            expansion_add=EF_CONSTRUCTION,
        )
        self.index.add(np.arange(len(vectors)), vectors, threads=BUILD_THREADS)

    def set_ef(self, ef: int) -> None:
        self.index.expansion_search = ef

    def search(self, query: np.ndarray, k: int) -> list[int]:
        return self.index.search(query, k, threads=1).keys.tolist()

    def add(self, start: int, rows: np.ndarray) -> None:
        self.index.add(np.arange(start, start + len(rows)), rows, threads=1)

    def delete(self, rows: np.ndarray) -> None:
        self.index.remove(rows)

    def close(self) -> None:
        del self.index


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
        f"(the libraries' builds: {BUILD_THREADS})",
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
    global BUILD_THREADS
    BUILD_THREADS = args.build_threads
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
