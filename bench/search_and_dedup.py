"""Semantic search and dedup scan: our code against the seeds' approach.

    .venv/bin/python bench/search_and_dedup.py            # 100k search, 10k dedup
    .venv/bin/python bench/search_and_dedup.py --search-size 10000 --dedup-size 2000

The seeds' approach is what the agent does: every stored vector as a Python list, cosine in
pure Python, then a sort (search), and a Python loop over all pairs (dedup). Ours is the
in-process ``VectorIndex`` (numpy float32, exact) and ``dedup_math.similar_pairs``
(blocked matrix products). Vectors are 384-d, in clusters, with planted near-duplicates.
The naive dedup is timed on a smaller set and scaled by n^2 (it is quadratic), and says so.
Results are printed and written to bench/results/search_and_dedup.json.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memory_app.notes.lib.replica.index import VectorIndex
from qqweb.lib.vectors import similar_pairs


def make_vectors(n: int, dim: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(max(1, n // 50), dim)).astype(np.float32)
    vectors = centres[rng.integers(0, len(centres), n)] + rng.normal(
        scale=0.6, size=(n, dim)
    ).astype(np.float32)
    twins = rng.choice(n, size=n // 100, replace=False)  # 1% planted near-duplicates
    vectors[twins[: len(twins) // 2]] = vectors[twins[len(twins) // 2 :]] + rng.normal(
        scale=0.05, size=(len(twins) // 2, dim)
    ).astype(np.float32)
    return vectors


def naive_cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


def bench_search(n: int, dim: int, queries: int, naive_queries: int) -> dict[str, float]:
    vectors = make_vectors(n, dim, seed=1)
    ids = [f"note_{i:012x}" for i in range(n)]
    index = VectorIndex(None)
    started = time.perf_counter()
    index.add_vectors(ids, ["Key Topics"] * n, vectors)
    build_s = time.perf_counter() - started
    rng = np.random.default_rng(2)
    probes = vectors[rng.integers(0, n, queries)] + rng.normal(scale=0.1, size=(queries, dim))
    times = []
    for probe in probes:
        t = time.perf_counter()
        index.search(probe, limit=5)
        times.append((time.perf_counter() - t) * 1000)
    stored = vectors.tolist()  # the agent's lists of floats
    naive = []
    for probe in probes[:naive_queries].tolist():
        t = time.perf_counter()
        scored = sorted(((naive_cosine(probe, v), i) for i, v in enumerate(stored)), reverse=True)
        scored[:5]
        naive.append((time.perf_counter() - t) * 1000)
    ours_p50 = statistics.median(times)
    return {
        "n": n,
        "index_build_s": round(build_s, 2),
        "ours_p50_ms": round(ours_p50, 2),
        "ours_p95_ms": round(sorted(times)[int(len(times) * 0.95) - 1], 2),
        "naive_p50_ms": round(statistics.median(naive), 1),
        "speedup": round(statistics.median(naive) / ours_p50, 1),
    }


def bench_dedup(n: int, naive_n: int, dim: int, threshold: float) -> dict[str, float]:
    vectors = make_vectors(n, dim, seed=3)
    started = time.perf_counter()
    i, _, _ = similar_pairs(vectors, threshold)
    ours_s = time.perf_counter() - started
    small = vectors[:naive_n].tolist()
    started = time.perf_counter()
    naive_pairs = 0
    for a in range(len(small)):
        for b in range(a + 1, len(small)):
            if naive_cosine(small[a], small[b]) >= threshold:
                naive_pairs += 1
    naive_small_s = time.perf_counter() - started
    naive_scaled_s = naive_small_s * (n / naive_n) ** 2
    return {
        "n": n,
        "pairs_found": len(i),
        "ours_s": round(ours_s, 3),
        "naive_measured_n": naive_n,
        "naive_measured_s": round(naive_small_s, 2),
        "naive_scaled_to_n_s": round(naive_scaled_s, 1),
        "speedup": round(naive_scaled_s / ours_s, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--search-size", type=int, default=100_000)
    parser.add_argument("--dedup-size", type=int, default=10_000)
    parser.add_argument("--naive-dedup-size", type=int, default=600)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--naive-queries", type=int, default=3)
    args = parser.parse_args()

    search = bench_search(args.search_size, args.dim, args.queries, args.naive_queries)
    print(
        f"search over {search['n']:,} x {args.dim}-d: ours p50 {search['ours_p50_ms']} ms "
        f"(p95 {search['ours_p95_ms']} ms, index built in {search['index_build_s']} s); "
        f"seeds' pure-Python cosine p50 {search['naive_p50_ms']} ms -> "
        f"{search['speedup']}x faster  [target: p50 <= 20 ms]"
    )
    dedup = bench_dedup(args.dedup_size, args.naive_dedup_size, args.dim, 0.85)
    print(
        f"dedup scan of {dedup['n']:,} notes at 0.85: ours {dedup['ours_s']} s "
        f"({dedup['pairs_found']} pairs); seeds' pairwise Python {dedup['naive_measured_s']} s "
        f"at {dedup['naive_measured_n']} notes, scaled by n^2 to {dedup['naive_scaled_to_n_s']} s "
        f"-> {dedup['speedup']}x faster  [target: <= 5 s at 10k]"
    )
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "search_and_dedup.json").write_text(
        json.dumps({"search": search, "dedup": dedup}, indent=2)
    )


if __name__ == "__main__":
    main()
