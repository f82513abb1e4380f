"""Dedup scan in bounded tiles: full and incremental, against the whole-row blocks the
scan used before and the seeds' pairwise Python.

    OMP_NUM_THREADS=1 taskset -c 1 .venv/bin/python bench/dedup_tiles.py
    OMP_NUM_THREADS=1 taskset -c 1 .venv/bin/python bench/dedup_tiles.py --size 1000000

Vectors: 384-d clustered, 1% planted near-duplicates, float32 from the start (as the
vector index's segments hold them). The full scan is timed at ``--full`` notes; the
incremental scan (``--changed`` notes against every note) at ``--size``. The seeds'
pairwise loop is timed on 400 notes and scaled by n^2. Load average beside each figure.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.search_and_dedup import naive_cosine
from bench.vector_index import clustered
from memory_app.notes.lib.dedup.maths import similar_pairs_tiled
from qqweb.lib.vectors import similar_pairs


def planted(n: int, seed: int) -> np.ndarray:
    """Clustered unit vectors with 1% planted near-duplicate pairs."""
    vectors = clustered(n, 384, seed)
    rng = np.random.default_rng(seed + 100)
    twins = rng.choice(n, size=n // 100, replace=False)
    half = len(twins) // 2
    noise = rng.normal(scale=0.02, size=(half, 384)).astype(np.float32)
    vectors[twins[:half]] = vectors[twins[half : 2 * half]] + noise
    vectors[twins[:half]] /= np.linalg.norm(vectors[twins[:half]], axis=1, keepdims=True)
    return vectors


def load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


def timed(fn):  # type: ignore[no-untyped-def]
    tracemalloc.start()
    t = time.perf_counter()
    out = fn()
    seconds = time.perf_counter() - t
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return out, seconds, peak / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--full", type=int, default=20_000)
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--changed", type=int, default=1000)
    args = parser.parse_args()
    result: dict[str, object] = {}

    vectors = planted(args.full, seed=3)
    (tiled, t_s, t_mb) = timed(lambda: similar_pairs_tiled(vectors, 0.85, unit=True))
    print(f"full scan, tiles, {args.full:,}: {t_s:.2f} s, peak {t_mb:.0f} MB extra  [{load()}]")
    (old, o_s, o_mb) = timed(lambda: similar_pairs(vectors, 0.85))
    print(f"full scan, whole-row blocks: {o_s:.2f} s, peak {o_mb:.0f} MB extra  [{load()}]")
    assert len(old[0]) == len(tiled[0])
    small = vectors[:400].tolist()
    t = time.perf_counter()
    for a in range(len(small)):
        for b in range(a + 1, len(small)):
            naive_cosine(small[a], small[b])
    naive_s = (time.perf_counter() - t) * (args.full / len(small)) ** 2
    print(
        f"seeds' pairwise Python, scaled from 400: {naive_s:.0f} s -> "
        f"{naive_s / t_s:.0f}x; whole-row blocks {o_s / t_s:.2f}x  [{load()}]"
    )
    result["full"] = {
        "n": args.full,
        "tiles_s": round(t_s, 2),
        "tiles_peak_mb": round(t_mb),
        "blocks_s": round(o_s, 2),
        "blocks_peak_mb": round(o_mb),
        "naive_scaled_s": round(naive_s),
        "pairs": len(tiled[0]),
        "load": load(),
    }
    del vectors

    vectors = planted(args.size, seed=4)
    changed = np.random.default_rng(5).choice(args.size, args.changed, replace=False)
    (inc, i_s, i_mb) = timed(lambda: similar_pairs_tiled(vectors, 0.85, rows=changed, unit=True))
    full_estimate = t_s * (args.size / args.full) ** 2
    print(
        f"incremental scan, {args.changed:,} changed against {args.size:,}: {i_s:.2f} s, peak "
        f"{i_mb:.0f} MB extra, {len(inc[0])} pairs; a full scan, scaled: {full_estimate:.0f} s "
        f"-> {full_estimate / i_s:.0f}x  [{load()}]"
    )
    result["incremental"] = {
        "n": args.size,
        "changed": args.changed,
        "s": round(i_s, 2),
        "peak_mb": round(i_mb),
        "full_scaled_s": round(full_estimate),
        "load": load(),
    }
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "dedup_tiles.json").write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
