"""Notes list paging at depth: our keyset pages against skip/limit (+ a count per page).

    .venv/bin/python bench/list_paging.py --server-bin ~/.cargo/bin/secantusd-rs
    .venv/bin/python bench/list_paging.py --uri mongodb://localhost:27017   # a real MongoDB

With ``--server-bin`` it starts that SecantusDB Rust server (``cargo install secantus-mdb
--version <pre-release>``) on a free port with a fresh data directory; SecantusDB's Python
server scans the whole collection for sorted queries and cannot show this. It loads
``--notes`` agent-shaped documents (384-d embeddings included), creates the indexes
(``ensure_indexes``), then times one page of 50 at depth 0, 1,000 and ``--depth`` through
``MongoNotesStore.list_notes`` (the code the screens and the API use), and the naive
``sort().skip(depth).limit(50)`` plus ``count_documents`` that a simple list would do.
Target: a page under 100 ms at depth 10,000 of 100k notes. Results go to
bench/results/list_paging.json.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

from pymongo import DESCENDING, MongoClient

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memory_app.notes.lib.constants import SECTIONS
from memory_app.notes.lib.mongo_store import MongoNotesStore


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(binary: str) -> tuple[str, subprocess.Popen[bytes], str]:
    data = tempfile.mkdtemp(prefix="qqweb-bench-")
    port = free_port()
    proc = subprocess.Popen(
        [binary, "--port", str(port), "--storage-path", data],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return f"mongodb://127.0.0.1:{port}/?directConnection=true", proc, data
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit(f"{binary} did not listen on port {port}")


def load(store: MongoNotesStore, n: int, dim: int) -> float:
    rng = random.Random(5)
    now = datetime(2026, 11, 22)
    started = time.perf_counter()
    batch = []
    for i in range(n):
        created = now - timedelta(minutes=rng.randint(0, 400 * 1440))
        batch.append(
            {
                "note_id": f"note_{i:012x}",
                "content": f"note {i} about topic {rng.randint(0, 500)}",
                "embedding": [rng.random() for _ in range(dim)],
                "section": rng.choice(SECTIONS),
                "metadata": {},
                "importance": round(rng.random(), 3),
                "decay_rate": 0.01,
                "access_count": rng.randint(0, 20),
                "created_at": created,
                "updated_at": created + timedelta(days=rng.randint(0, 30)),
                "last_accessed": None,
            }
        )
        if len(batch) == 1000:
            store.collection.insert_many(batch, ordered=False)
            batch = []
    if batch:
        store.collection.insert_many(batch, ordered=False)
    return time.perf_counter() - started


def time_ms(fn, repeat: int = 5) -> float:  # type: ignore[no-untyped-def]
    samples = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t) * 1000)
    return round(statistics.median(samples), 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--uri", default="")
    parser.add_argument("--server-bin", default=shutil.which("secantusd-rs") or "")
    parser.add_argument("--notes", type=int, default=100_000)
    parser.add_argument("--depth", type=int, default=10_000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--sorts", default="updated,importance,access_count")
    args = parser.parse_args()
    proc = None
    uri = args.uri
    if not uri:
        if not args.server_bin:
            raise SystemExit("give --uri, or --server-bin (cargo install secantus-mdb)")
        uri, proc, _ = start_server(args.server_bin)
    client: MongoClient = MongoClient(uri, serverSelectionTimeoutMS=10_000)
    store = MongoNotesStore(client=client, database="qqweb_bench", collection="notes")
    try:
        store.collection.drop()
        load_s = load(store, args.notes, args.dim)
        store.ensure_indexes()
        print(f"loaded {args.notes:,} notes in {load_s:.0f} s")
        results: dict[str, dict[str, float]] = {}
        fields = {
            "updated": "updated_at",
            "importance": "importance",
            "access_count": "access_count",
        }
        for sort in args.sorts.split(","):
            for depth in sorted({0, 1000, args.depth}):
                cursor = None
                for _ in range(depth // 50):  # walk to the depth the way a user pages
                    cursor = store.list_notes(sort=sort, limit=50, cursor=cursor).next_cursor
                ours = time_ms(
                    lambda c=cursor, s=sort: store.list_notes(sort=s, limit=50, cursor=c)
                )
                naive = time_ms(
                    lambda d=depth, s=sort: (
                        list(
                            store.collection.find({}, {"embedding": 0})
                            .sort([(fields[s], DESCENDING), ("note_id", DESCENDING)])
                            .skip(d)
                            .limit(50)
                        ),
                        store.collection.count_documents({}),
                    ),
                    repeat=3,
                )
                key = f"{sort}@{depth}"
                results[key] = {
                    "keyset_ms": ours,
                    "skip_limit_and_count_ms": naive,
                    "ratio": round(naive / ours, 1) if ours else 0.0,
                }
                print(
                    f"sort {sort:<12} depth {depth:>6,}: keyset page {ours} ms; "
                    f"skip/limit + count {naive} ms -> {results[key]['ratio']}x  "
                    "[target: < 100 ms]"
                )
        out = ROOT / "bench" / "results"
        out.mkdir(parents=True, exist_ok=True)
        (out / "list_paging.json").write_text(
            json.dumps(
                {"notes": args.notes, "server": args.server_bin or uri, "pages": results}, indent=2
            )
        )
    finally:
        store.collection.drop()
        if proc is not None:
            proc.terminate()
            proc.wait(30)


if __name__ == "__main__":
    main()
