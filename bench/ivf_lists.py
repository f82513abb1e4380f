"""How many lists, trained and assigned how: the experiments behind the vector index's
list count and probing rule (``memory_app/notes/lib/replica/segments.py``; figures in
bench/HISTORY.md, "Warm start and search speed").

    OMP_NUM_THREADS=1 .venv/bin/python bench/ivf_lists.py --size 1000000 --lists 10000 --flat
    OMP_NUM_THREADS=1 .venv/bin/python bench/ivf_lists.py --size 1000000 --groups 625 --nearest 8
    .venv/bin/python bench/ivf_lists.py --stats    # bench vectors against MiniLM embeddings

On the bench's clustered vectors (``bench/common.clustered``, the same seed and probes
as ``search_rows``): train centroids (flat spherical k-means, or two-level: coarse groups,
then lists inside each), assign every row (exactly, or within its ``--nearest`` groups),
then print recall@10 against the exact scan and the time per query for fixed probe
counts and for the margin rule. Every figure carries the 1-minute load average.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import ROOT, clustered, load
from memory_app.notes.lib.replica.segments import nearest_centroid
from qqweb.lib.vectors import dot


def kmeans(x: np.ndarray, k: int, seed: int = 1) -> np.ndarray:
    import faiss

    k = min(k, len(x))
    km = faiss.Kmeans(
        x.shape[1], k, niter=10, spherical=True, seed=seed, max_points_per_centroid=10**9
    )
    km.cp.min_points_per_centroid = 1
    km.train(np.ascontiguousarray(x, dtype=np.float32))
    return np.asarray(km.centroids, dtype=np.float32)


def two_level(
    sample: np.ndarray, lists: int, groups: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(coarse centroids, list centroids ordered by group, each group's first list)."""
    rng = np.random.default_rng(1)
    coarse = kmeans(
        sample[rng.choice(len(sample), min(len(sample), groups * 256), replace=False)], groups
    )
    group = (sample @ coarse.T).argmax(1)
    counts = np.bincount(group, minlength=groups)
    sizes = np.minimum(
        np.maximum(1, np.round(counts * lists / len(sample)).astype(int)), np.maximum(counts, 1)
    )
    parts = [
        kmeans(sample[group == g], int(sizes[g]), seed=g + 1) for g in range(groups) if counts[g]
    ]
    starts = np.concatenate([[0], np.cumsum([len(p) for p in parts])])
    return coarse[counts > 0], np.vstack(parts), starts


def assign_two_level(
    vectors: np.ndarray, coarse: np.ndarray, centroids: np.ndarray, starts: np.ndarray, nearest: int
) -> np.ndarray:
    out = np.empty(len(vectors), np.int64)
    for at in range(0, len(vectors), 65_536):
        block = np.ascontiguousarray(vectors[at : at + 65_536])
        top = np.argpartition(-(block @ coarse.T), nearest - 1, axis=1)[:, :nearest]
        best = np.full(len(block), -np.inf, np.float32)
        arg = np.zeros(len(block), np.int64)
        for g in range(len(coarse)):
            rows = np.flatnonzero((top == g).any(1))
            if not len(rows):
                continue
            scores = block[rows] @ centroids[starts[g] : starts[g + 1]].T
            j = scores.argmax(1)
            value = scores[np.arange(len(rows)), j]
            better = value > best[rows]
            best[rows[better]], arg[rows[better]] = value[better], starts[g] + j[better]
        out[at : at + len(block)] = arg
    return out


def stats(name: str, v: np.ndarray) -> None:
    v = v / np.linalg.norm(v, axis=1, keepdims=True)
    rng = np.random.default_rng(0)
    a, b = rng.integers(0, len(v), 20_000), rng.integers(0, len(v), 20_000)
    pair = (v[a] * v[b]).sum(1)
    ev = np.sort(np.linalg.eigvalsh(np.cov(v[:20_000].T)))[::-1]
    print(
        f"{name}: random pairs' cosine {pair.mean():.3f} +- {pair.std():.3f}; mean vector's "
        f"norm {np.linalg.norm(v.mean(0)):.3f}; participation ratio "
        f"{ev.sum() ** 2 / (ev**2).sum():.0f} of {v.shape[1]}; top 64 components "
        f"{ev[:64].sum() / ev.sum():.2f} of the variance"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--lists", type=int, default=0, help="default: the index's rule")
    parser.add_argument("--per", type=int, default=16, help="training rows per list")
    parser.add_argument("--flat", action="store_true", help="flat k-means, exact assignment")
    parser.add_argument("--groups", type=int, default=0, help="two-level: coarse groups")
    parser.add_argument("--nearest", type=int, default=3, help="two-level: groups per row")
    parser.add_argument("--stats", action="store_true")
    args = parser.parse_args()
    if args.stats:
        fixture = np.load(ROOT / "tests" / "fixtures" / "minilm_notes.npz")
        stats("MiniLM fixture (3,000 notes)", fixture["vectors"].astype(np.float32))
        stats("bench clustered, 1M (first 20k rows)", clustered(1_000_000, 384, seed=1)[:20_000])
        return
    n = args.size
    vectors = clustered(n, 384, seed=1)
    rng = np.random.default_rng(2)  # the probes of bench/search_overview_scale.search_rows
    probes = vectors[rng.integers(0, n, 100)]
    probes = probes + rng.normal(scale=0.05, size=probes.shape).astype(np.float32)
    probes /= np.linalg.norm(probes, axis=1, keepdims=True)
    lists = args.lists or max(1, int(max(4 * np.sqrt(n), n / 100)))
    t = time.perf_counter()
    sample = vectors[
        np.sort(np.random.default_rng(1).choice(n, min(n, lists * args.per), replace=False))
    ]
    if args.groups:
        coarse, centroids, starts = two_level(sample, lists, args.groups)
    else:
        centroids = kmeans(sample, lists)
    print(f"trained {len(centroids)} lists in {time.perf_counter() - t:.1f} s [load {load()}]")
    t = time.perf_counter()
    if args.groups:
        assign = assign_two_level(vectors, coarse, centroids, starts, args.nearest)
        exact = nearest_centroid(vectors[:20_000], centroids)
        agree = f"; {np.mean(exact == assign[:20_000]):.3f} of rows in their nearest list"
    else:
        assign, agree = nearest_centroid(vectors, centroids), ""
    print(f"assigned in {time.perf_counter() - t:.1f} s [load {load()}]{agree}")
    order = np.argsort(assign, kind="stable")
    rows_sorted = vectors[order]
    del vectors
    offsets = np.searchsorted(assign[order], np.arange(len(centroids) + 1))
    truth = []
    for p in probes:
        scores = rows_sorted @ p
        truth.append(set(np.argpartition(-scores, 9)[:10].tolist()))

    def search(q: np.ndarray, probes: int, least: int, margin: float) -> tuple[set[int], int]:
        scores = dot(centroids, q)
        near = np.argpartition(-scores, probes - 1)[:probes]
        keep = scores[near] >= scores[near].max() - margin
        keep[np.argpartition(-scores[near], least - 1)[:least]] = True
        found_rows, found_scores = [], []
        for i in np.sort(near[keep]):
            a, b = offsets[i], offsets[i + 1]
            found_rows.append(np.arange(a, b))
            found_scores.append(dot(rows_sorted[a:b], q))
        rows, sc = np.concatenate(found_rows), np.concatenate(found_scores)
        top = np.argpartition(-sc, min(10, len(sc)) - 1)[:10]
        return set(rows[top].tolist()), len(rows)

    for probes_, least, margin in [
        (8, 8, 0),
        (16, 16, 0),
        (64, 64, 0),
        (128, 128, 0),
        (256, 1, 0.1),
        (128, 64, 0.1),
    ]:
        times, recalls, scanned = [], [], []
        for q, expected in zip(probes, truth, strict=True):
            t = time.perf_counter()
            found, count = search(q, probes_, least, margin)
            times.append((time.perf_counter() - t) * 1000)
            recalls.append(len(found & expected) / 10)
            scanned.append(count)
        times.sort()
        print(
            f"  {least} nearest lists (+ within {margin} of the best, at most {probes_}): "
            f"p50 {times[50]:.2f} ms, p95 {times[94]:.2f} ms, recall@10 {np.mean(recalls):.4f}, "
            f"{np.median(scanned):.0f} rows scanned [load {load()}]"
        )


if __name__ == "__main__":
    main()
