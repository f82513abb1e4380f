"""Maintenance jobs at 10k and 100k notes: the dedup scan and the decay pass, ours against
the seeds' approach, on a real server.

    .venv/bin/python bench/jobs.py --server-bin var/cargo/bin/secantusd-rs

Ours: ``NoteDeduplicator.find_similar_ids`` (load the vectors, blocked numpy) and
``MongoNotesStore.decay_pass`` (one read, bulk compare-and-set writes). The seeds': fetch
every note, then pure-Python pairwise cosine (timed on 600 notes and scaled by n^2, since
it is quadratic) and a Python loop of one ``update_one`` per note. Notes are 384-d, with 1%
planted near-duplicates. Results go to bench/results/jobs.json.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np
from pymongo import MongoClient

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.list_paging import start_server
from bench.search_and_dedup import make_vectors, naive_cosine
from memory_app.notes.lib.dedup.deduplicator import NoteDeduplicator
from memory_app.notes.lib.importance import ImportanceScorer, ScoredNote
from memory_app.notes.lib.mongo_store import MongoNotesStore


def load(store: MongoNotesStore, n: int) -> None:
    vectors = make_vectors(n, 384, seed=9)
    now = datetime(2026, 11, 22)
    rng = np.random.default_rng(4)
    for start in range(0, n, 1000):
        store.collection.insert_many(
            [
                {
                    "note_id": f"note_{i:012x}",
                    "content": f"note {i}",
                    "embedding": vectors[i].tolist(),
                    "section": "Key Topics",
                    "metadata": {},
                    "importance": float(rng.random()),
                    "decay_rate": 0.01,
                    "access_count": int(rng.integers(0, 10)),
                    "created_at": now - timedelta(days=int(rng.integers(1, 400))),
                    "updated_at": now,
                    "last_accessed": None,
                }
                for i in range(start, min(start + 1000, n))
            ]
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--uri", default="")
    parser.add_argument("--server-bin", default=shutil.which("secantusd-rs") or "")
    parser.add_argument("--sizes", default="10000,100000")
    args = parser.parse_args()
    proc = None
    uri = args.uri
    if not uri:
        if not args.server_bin:
            raise SystemExit("give --uri, or --server-bin (cargo install secantus-mdb)")
        uri, proc, _ = start_server(args.server_bin)
    store = MongoNotesStore(client=MongoClient(uri), database="qqweb_bench", collection="notes")
    results = {}
    try:
        for n in [int(s) for s in args.sizes.split(",")]:
            store.collection.drop()
            load(store, n)
            store.ensure_indexes()
            t = time.perf_counter()
            pairs = NoteDeduplicator(store).find_similar_ids(0.85)
            ours_dedup = time.perf_counter() - t

            t = time.perf_counter()
            docs = list(store.collection.find({}, {"_id": 0, "embedding": 1}).limit(600))
            fetch_600 = time.perf_counter() - t
            vectors = [d["embedding"] for d in docs]
            t = time.perf_counter()
            for a in range(len(vectors)):
                for b in range(a + 1, len(vectors)):
                    naive_cosine(vectors[a], vectors[b])
            naive_dedup = (time.perf_counter() - t) * (n / 600) ** 2 + fetch_600 * n / 600

            t = time.perf_counter()
            report = store.decay_pass()
            ours_decay = time.perf_counter() - t
            t = time.perf_counter()
            assert store.decay_pass().written == 0  # the second pass changes nothing
            ours_decay_again = time.perf_counter() - t

            sample = min(n, 2000)
            t = time.perf_counter()
            scorer = ImportanceScorer()
            for doc in store.collection.find({}, {"_id": 0, "embedding": 0}).limit(sample):
                value = scorer.decay_importance(ScoredNote.from_document(doc))
                store.collection.update_one(
                    {"note_id": doc["note_id"]}, {"$set": {"qqweb_bench": value}}
                )
            naive_decay = (time.perf_counter() - t) * n / sample

            results[n] = {
                "dedup_s": round(ours_dedup, 2),
                "pairs": len(pairs),
                "naive_dedup_scaled_s": round(naive_dedup),
                "decay_s": round(ours_decay, 2),
                "decay_written": report.written,
                "decay_again_s": round(ours_decay_again, 2),
                "naive_decay_scaled_s": round(naive_decay, 1),
            }
            r = results[n]
            print(
                f"{n:>7,} notes: dedup scan {r['dedup_s']} s ({r['pairs']} pairs) vs seeds' "
                f"~{r['naive_dedup_scaled_s']:,} s (x{math.floor(naive_dedup / ours_dedup)}); "
                f"decay pass {r['decay_s']} s ({r['decay_written']} written; again "
                f"{r['decay_again_s']} s, 0 written) vs a per-note loop "
                f"~{r['naive_decay_scaled_s']} s (x{naive_decay / ours_decay:.1f})"
            )
        out = ROOT / "bench" / "results"
        out.mkdir(parents=True, exist_ok=True)
        (out / "jobs.json").write_text(json.dumps(results, indent=2))
    finally:
        store.collection.drop()
        if proc is not None:
            proc.terminate()
            proc.wait(30)


if __name__ == "__main__":
    main()
