"""Issue 14's dedup rows: the full scan (exact blocks, and pruned through k-means cells),
the same scan's blocks shared by 1 and by 2 real Celery workers, and the incremental scan.

- **full, exact**: ``exact_blocks`` + ``exact_block_pairs`` (what a worker runs) over
  unit float32 vectors in memory, in one process with the machine's BLAS threads; "before"
  is the single tile loop the scan used until now (``similar_pairs_tiled``).
- **pruned**: ``cells_plan`` + ``cell_block_pairs``, with the recall of pairs against the
  exact scan (at 10k and 100k the whole exact answer; at 1M the exact pairs of 1,000
  sampled notes against every note). At 1M it runs in a child process over a memory-
  mapped .npy, so its peak RSS is the scan's own (the 1.5 GB of vectors included).
- **workers**: the scan's queue is written once (not timed: the coordinator's part),
  then K real Celery workers (solo pool, ``OMP_NUM_THREADS=1``: one BLAS thread each, so
  1 vs 2 workers is 1 vs 2 cores on this 2-core machine) take every block; timed from the
  first block task sent to the last block written, the workers already started.
- **incremental**: 1,000 changed notes against every note (``changed_pairs_on_base``:
  the unchanged rows memory-mapped from a saved file, as from the vector index's
  segment; the job end to end is ``bench/dedup_job.py``).
- **naive**: pure-Python cosine per pair, timed on 400 notes, scaled by the pairs.

Vectors: 384-d clustered with 1% planted near-duplicates (``planted``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.common import ROOT, Figure, Row, clustered, load, timed_ms
from memory_app.notes.lib.dedup import blocks as db
from memory_app.notes.lib.dedup.maths import similar_pairs_tiled

REDIS_PORT = 29510


def planted(n: int, seed: int) -> np.ndarray:
    vectors = clustered(n, 384, seed)
    rng = np.random.default_rng(seed + 100)
    twins = rng.choice(n, size=n // 100, replace=False)
    half = len(twins) // 2
    noise = rng.normal(scale=0.02, size=(half, 384)).astype(np.float32)
    vectors[twins[:half]] = vectors[twins[half : 2 * half]] + noise
    vectors[twins[:half]] /= np.linalg.norm(vectors[twins[:half]], axis=1, keepdims=True)
    return vectors


def planted_pairs(n: int, seed: int) -> set[tuple[int, int]]:
    """The near-duplicate pairs ``planted`` made (each above 0.9)."""
    rng = np.random.default_rng(seed + 100)
    twins = rng.choice(n, size=n // 100, replace=False)
    half = len(twins) // 2
    pairs = zip(twins[:half].tolist(), twins[half : 2 * half].tolist(), strict=True)
    return {(min(a, b), max(a, b)) for a, b in pairs}


def exact_scan(matrix: np.ndarray, threshold: float = 0.85) -> db.Pairs:
    parts = [db.exact_block_pairs(matrix, a, b, threshold) for a, b in db.exact_blocks(len(matrix))]
    return db.join_pairs(parts)


def pruned_scan(matrix: np.ndarray, threshold: float = 0.85) -> db.Pairs:
    cells = db.cells_plan(matrix)
    parts = [db.cell_block_pairs(matrix, cells, a, b, threshold) for a, b in db.cell_blocks(cells)]
    return db.join_pairs(parts)


def pair_set(pairs: db.Pairs) -> set[tuple[int, int]]:
    return set(zip(pairs[0].tolist(), pairs[1].tolist(), strict=True))


def recall(found: set[tuple[int, int]], truth: set[tuple[int, int]]) -> float:
    return len(found & truth) / len(truth) if truth else 1.0


def minilm_recall(threshold: float = 0.85) -> tuple[float, int]:
    data = np.load(ROOT / "tests" / "fixtures" / "minilm_notes.npz")
    vectors = data["vectors"].astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    truth = pair_set(exact_scan(vectors, threshold))
    return recall(pair_set(pruned_scan(vectors, threshold)), truth), len(truth)


def naive_per_pair_ms() -> float:
    from bench.search_overview_scale import naive_cosine

    small = planted(400, seed=9).tolist()
    t = time.perf_counter()
    for a in range(len(small)):
        for b in range(a + 1, len(small)):
            naive_cosine(small[a], small[b])
    return (time.perf_counter() - t) * 1000 / (len(small) * (len(small) - 1) / 2)


def report(rows: list[Row], row: Row) -> None:
    rows.append(row)
    cells = "; ".join(f"{k}: {f.text()}" for k, f in row.figures.items())
    print(f"  {row.name}: {cells}", flush=True)


def full_row(n: int, per_pair: float, before: bool) -> Row:
    vectors = planted(n, seed=3)
    row = Row(f"full dedup scan at 0.85, {n:,} notes, one process (vectors in memory)")
    ms, exact = timed_ms(lambda: exact_scan(vectors))
    row.figures["current"] = Figure(ms, load(), f"exact blocks, {len(exact[0]):,} pairs")
    if before:
        ms, old = timed_ms(lambda: similar_pairs_tiled(vectors, 0.85, unit=True))
        row.figures["before"] = Figure(ms, load(), f"{len(old[0]):,} pairs")
    ms, pruned = timed_ms(lambda: pruned_scan(vectors))
    got = recall(pair_set(pruned), pair_set(exact))
    row.figures["pruned"] = Figure(ms, load(), f"recall {got:.4f} of {len(exact[0]):,}")
    row.figures["naive"] = Figure(per_pair * n * (n - 1) / 2, load(), "timed on 400 notes")
    return row


PRUNED_CHILD = """
import json, resource, sys, time
import numpy as np
sys.path.insert(0, {root!r})
from bench.dedup_scale import planted_pairs, pruned_scan
from memory_app.notes.lib.dedup import blocks as db
matrix = np.load({path!r}, mmap_mode="r")
t = time.perf_counter()
i, j, s = pruned_scan(matrix)
seconds = time.perf_counter() - t
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
rows = np.sort(np.random.default_rng(11).choice(len(matrix), 1000, replace=False))
left = np.asarray(matrix[rows])
truth = set()
for c0 in range(0, len(matrix), 65536):
    sims = left @ np.asarray(matrix[c0 : c0 + 65536]).T
    rr, cc = np.nonzero(sims >= 0.85)
    for a, b in zip(rows[rr].tolist(), (cc + c0).tolist()):
        if a != b:
            truth.add((min(a, b), max(a, b)))
sampled = set(rows.tolist())
everything = set(zip(i.tolist(), j.tolist()))
found = {{p for p in everything if p[0] in sampled or p[1] in sampled}}
recall = len(found & truth) / len(truth) if truth else 1.0
twins = planted_pairs(len(matrix), 3)
recall_planted = len(everything & twins) / len(twins)
print(json.dumps({{"seconds": seconds, "pairs": len(i), "rss_gb": rss, "recall": recall,
                  "truth": len(truth), "planted": len(twins), "recall_planted": recall_planted}}))
"""


def pruned_big_row(n: int, per_pair: float) -> Row:
    with tempfile.TemporaryDirectory(prefix="qqweb-dedup-") as work:
        path = str(Path(work) / "vectors.npy")
        np.save(path, planted(n, seed=3))
        code = PRUNED_CHILD.format(root=str(ROOT), path=path)
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        )
    got = json.loads(out.stdout.strip().splitlines()[-1])
    row = Row(f"full dedup scan at 0.85, {n:,} notes, pruned (memory-mapped vectors)")
    row.figures["current"] = Figure(
        got["seconds"] * 1000,
        load(),
        f"{got['pairs']:,} pairs, peak RSS {got['rss_gb']:.2f} GB, recall "
        f"{got['recall_planted']:.4f} of the {got['planted']:,} planted pairs and "
        f"{got['recall']:.4f} of {got['truth']:,} exact pairs of 1,000 sampled notes",
    )
    row.figures["naive"] = Figure(per_pair * n * (n - 1) / 2, load(), "timed on 400 notes")
    return row


def incremental_row(n: int, changed: int, per_pair: float) -> Row:
    vectors = planted(n, seed=4)
    picked = np.random.default_rng(5).choice(n, changed, replace=False)
    with tempfile.TemporaryDirectory(prefix="qqweb-dedup-incremental-") as tmp:
        # the unchanged rows memory-mapped from a saved file (the vector index's segment),
        # the changed ones fresh: what the job's blocks compute
        np.save(Path(tmp) / "base.npy", vectors)
        base = np.load(Path(tmp) / "base.npy", mmap_mode="r")
        live = np.ones(n, dtype=bool)
        live[picked] = False
        fresh = np.ascontiguousarray(vectors[picked])
        rows = np.arange(n, n + changed)
        ms, (i, _, _) = timed_ms(
            lambda: db.changed_pairs_on_base(base, live, fresh, rows, 0, changed, 0.85)
        )
    row = Row(f"incremental dedup, {changed:,} changed against {n:,}")
    row.figures["current"] = Figure(ms, load(), f"{len(i):,} pairs, unchanged rows mapped")
    row.figures["naive"] = Figure(per_pair * changed * (n - 1), load(), "timed on 400 notes")
    return row


def dedup_rows(
    full_sizes: list[int], incremental_at: list[int], changed: int, workers_at: list[int]
) -> list[Row]:
    rows: list[Row] = []
    per_pair = naive_per_pair_ms()
    for n in full_sizes:
        if n < 150_000:  # exact and pruned both, pruned's recall against the exact pairs
            report(rows, full_row(n, per_pair, before=n <= 20_000))
        else:
            report(rows, pruned_big_row(n, per_pair))
    recall_minilm, truth = minilm_recall()
    row = Row("pruned scan's recall on 3,000 real MiniLM embeddings (tests' fixture)")
    row.figures["current"] = Figure(None, load(), f"recall {recall_minilm:.4f} of {truth:,}")
    report(rows, row)
    for n in workers_at:
        from bench.dedup_workers import workers_row

        report(rows, workers_row(n, REDIS_PORT))
    for n in incremental_at:
        report(rows, incremental_row(n, changed, per_pair))
    return rows


if __name__ == "__main__":  # a quick look: python -m bench.dedup_scale 10000
    os.environ.setdefault("OMP_NUM_THREADS", "2")
    sizes = [int(s) for s in (sys.argv[1:] or ["10000"])]
    dedup_rows(sizes, [], 1000, [])
