"""Vector search: the index (an inverted file scanned exactly, memory-mapped) against the
exact float32 scan the dashboard used before and the seeds' pure-Python cosine.

    OMP_NUM_THREADS=1 taskset -c 1 .venv/bin/python bench/vector_index.py          # 100k
    OMP_NUM_THREADS=1 taskset -c 1 .venv/bin/python bench/vector_index.py --size 1000000

Vectors are 384-d, in clusters with noise (harder for any approximate stage than real
MiniLM embeddings, whose recall the tests assert on a fixed set), generated in chunks.
Every figure is printed with the 1-minute load average beside it (the machine is shared).
Results go to bench/results/vector_index-<size>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.search_and_dedup import naive_cosine
from memory_app.notes.lib.replica.index import VectorIndex
from memory_app.notes.lib.replica.state import load_snapshot
from qqweb.lib.vectors import normalise


def load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


def clustered(n: int, dim: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(max(1, n // 50), dim)).astype(np.float32)
    out = np.empty((n, dim), dtype=np.float32)
    for start in range(0, n, 50_000):
        stop = min(n, start + 50_000)
        noise = rng.standard_normal(size=(stop - start, dim), dtype=np.float32) * 0.6
        out[start:stop] = centres[rng.integers(0, len(centres), stop - start)] + noise
    return normalise(out)


def percentiles(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    return statistics.median(ordered), ordered[max(0, int(len(ordered) * 0.95) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--naive-queries", type=int, default=2)
    args = parser.parse_args()
    n, dim = args.size, args.dim
    vectors = clustered(n, dim, seed=1)
    rng = np.random.default_rng(2)
    probes = normalise(
        vectors[rng.integers(0, n, args.queries)]
        + rng.normal(scale=0.1, size=(args.queries, dim)).astype(np.float32)
    )
    ids = [f"note_{i:012x}" for i in range(n)]
    result: dict[str, object] = {"n": n, "dim": dim}

    # the exact scan (what the dashboard's index did on every query)
    exact_times, truth = [], []
    for probe in probes:
        t = time.perf_counter()
        scores = vectors @ probe
        top = np.argpartition(-scores, 9)[:10]
        truth.append(set(top[np.argsort(-scores[top])].tolist()))
        exact_times.append((time.perf_counter() - t) * 1000)
    exact_p50, exact_p95 = percentiles(exact_times)
    result["exact"] = {"p50_ms": round(exact_p50, 3), "p95_ms": round(exact_p95, 3), "load": load()}
    print(
        f"exact float32 scan over {n:,}: p50 {exact_p50:.2f} ms p95 {exact_p95:.2f} ms  [{load()}]"
    )

    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        t = time.perf_counter()
        index = VectorIndex(None, directory=directory, exact_below=0)
        index.add_vectors(ids, ["Key Topics"] * n, vectors)
        build_s = time.perf_counter() - t
        t = time.perf_counter()
        snapshot = load_snapshot(directory, 0)
        open_s = time.perf_counter() - t
        assert snapshot is not None
        print(
            f"index written in {build_s:.1f} s; reopened memory-mapped in "
            f"{open_s * 1000:.0f} ms  [{load()}]"
        )
        ours_times, recalls = [], []
        for probe, expected in zip(probes, truth, strict=True):
            t = time.perf_counter()
            hits = index.search(probe, limit=10).hits
            ours_times.append((time.perf_counter() - t) * 1000)
            recalls.append(len({int(h[0][5:], 16) for h in hits} & expected) / 10)
        ours_p50, ours_p95 = percentiles(ours_times)
        recall = float(np.mean(recalls))
        result["ours"] = {
            "p50_ms": round(ours_p50, 3),
            "p95_ms": round(ours_p95, 3),
            "recall_at_10": recall,
            "write_s": round(build_s, 2),
            "open_ms": round(open_s * 1000, 1),
            "load": load(),
        }
        print(
            f"index search over {n:,}: p50 {ours_p50:.2f} ms p95 {ours_p95:.2f} ms, recall@10 "
            f"{recall:.4f} against exact -> {exact_p50 / ours_p50:.1f}x the exact scan  [{load()}]"
        )
        index.close()

    stored = vectors[: min(n, 100_000)].tolist()  # the agent's lists of floats
    naive_times = []
    for probe in probes[: args.naive_queries].tolist():
        t = time.perf_counter()
        scored = sorted(((naive_cosine(probe, v), i) for i, v in enumerate(stored)), reverse=True)
        scored[:10]
        naive_times.append((time.perf_counter() - t) * 1000 * n / len(stored))
    naive_p50 = statistics.median(naive_times)
    result["naive"] = {"p50_ms": round(naive_p50, 1), "scaled_from": len(stored), "load": load()}
    result["ratios"] = {
        "vs_exact": round(exact_p50 / ours_p50, 1),
        "vs_naive": round(naive_p50 / ours_p50),
    }
    print(
        f"seeds' pure-Python cosine: p50 {naive_p50:.0f} ms"
        f"{' (scaled from 100k)' if n > len(stored) else ''} -> "
        f"{naive_p50 / ours_p50:.0f}x  [{load()}]"
    )
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / f"vector_index-{n}.json").write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
