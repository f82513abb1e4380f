"""The rows of issue 14's table that need no server, at any size (1M included): search
alone over the vector index, the read model's Overview and list pages, and the dedup scan.

Notes are generated in the process (clustered 384-d vectors, agent-shaped fields). The
naive approach's pure-Python work is timed on at most ``naive_cap`` notes and scaled
linearly (search, Overview) or by n^2 (dedup), and says so.
"""

from __future__ import annotations

import math
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import (
    Figure,
    Row,
    agent_notes,
    clustered,
    load,
    model_overview,
    sample,
    timed_ms,
)
from memory_app.notes.lib.documents import effective_importance
from memory_app.notes.lib.replica.index import VectorIndex
from memory_app.notes.lib.replica.read_model import ReadModel


def naive_cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


def report(rows: list[Row], row: Row) -> None:
    rows.append(row)
    cells = "; ".join(f"{k}: {f.text()}" for k, f in row.figures.items())
    print(f"  {row.name}: {cells}", flush=True)


def search_rows(n: int, dim: int, naive_cap: int) -> list[Row]:
    rows: list[Row] = []
    vectors = clustered(n, dim, seed=1)
    rng = np.random.default_rng(2)
    probes = vectors[rng.integers(0, n, 100)]
    probes = probes + rng.normal(scale=0.05, size=probes.shape).astype(np.float32)
    probes /= np.linalg.norm(probes, axis=1, keepdims=True)
    truth = []
    for p in probes:
        scores = vectors @ p
        top = np.argpartition(-scores, 9)[:10]
        truth.append(set(top.tolist()))
    ids = [f"note_{i:012x}" for i in range(n)]
    with tempfile.TemporaryDirectory() as tmp:
        index = VectorIndex(None, directory=Path(tmp), exact_below=0)
        build_ms, _ = timed_ms(lambda: index.add_vectors(ids, ["Key Topics"] * n, vectors))
        print(f"  index written in {build_ms / 1000:.0f} s  [load {load():.1f}]", flush=True)
        found: list[int] = []

        def ours() -> None:
            i = len(found) % len(probes)
            hits = index.search(probes[i], limit=10).hits
            found.append(len({int(h[0][5:], 16) for h in hits} & truth[i]))

        p50, p95 = sample(ours, 100)
        row = Row("search alone, in-process")
        recall = sum(found) / (10 * len(found))
        row.figures["current"] = Figure(p50, load(), f"recall@10 {recall:.3f}")
        row.figures["current p95"] = Figure(p95, load())
        e50, _ = sample(lambda: np.argpartition(-(vectors @ probes[0]), 9)[:10], 20)
        row.figures["exact float32 scan"] = Figure(e50, load())
        lists = vectors[: min(n, naive_cap)].tolist()
        ms, _ = timed_ms(lambda: sorted(naive_cosine(probes[0].tolist(), v) for v in lists))
        scaled = f"scaled from {len(lists):,}" if len(lists) < n else ""
        row.figures["naive"] = Figure(ms * n / len(lists), load(), scaled)
        report(rows, row)
        index.close()
    return rows


def model_of(n: int) -> tuple[ReadModel, list[dict[str, Any]]]:
    """A read model of ``n`` agent-shaped notes, and the first 100k of them as documents
    (for the naive approach)."""
    model = ReadModel()
    kept: list[dict[str, Any]] = []
    for start in range(0, n, 50_000):
        docs = agent_notes(start, min(n, start + 50_000), None)
        for doc in docs:
            model.put(doc)
        if len(kept) < 100_000:
            kept.extend(docs)
    return model, kept


def read_model_rows(n: int) -> list[Row]:
    rows: list[Row] = []
    t = time.perf_counter()
    model, docs = model_of(n)
    print(
        f"  read model of {n:,} notes filled in {time.perf_counter() - t:.0f} s "
        f"[load {load():.1f}]",
        flush=True,
    )
    now = datetime(2026, 11, 23)
    scale = n / len(docs)
    note = f"Python work on {len(docs):,}, scaled; no fetch" if scale > 1 else "no fetch"

    row = Row("Overview's numbers and pictures (read_aggregates, as the selectors call it)")
    p50, p95 = sample(lambda: model_overview(model, now, 0.2), 10)
    row.figures["read model"], row.figures["read model p95"] = (
        Figure(p50, load()),
        Figure(p95, load()),
    )
    ms, _ = timed_ms(
        lambda: [
            [effective_importance(x, now + timedelta(days=d)) for x in docs] for d in (0, 7, 30, 90)
        ]
    )
    row.figures["naive"] = Figure(ms * scale, load(), note)
    report(rows, row)

    return rows
