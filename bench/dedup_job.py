"""The incremental dedup job end to end (issue 14: "an incremental scan that compares only
notes changed since the last scan against everything"), in-process against the Python
daemon ``make dev`` starts (``secantusd-py``, fresh on ``--port``, data under /tmp):

    .venv/bin/python bench/dedup_job.py --n 100000 --changed 1000 [--server rust]
    .venv/bin/python bench/dedup_job.py --in-process 1000000 --changed 1000

``--n`` agent-shaped notes (384-d clustered vectors, written a minute apart, the last a
month ago) are seeded; the vector index saves its snapshot of them (what it does in the
background when a process opens it without one; timed apart); a finished dedup scan run is
recorded as the last complete scan (a full exact scan at 100k takes minutes here: see the
dedup table); then the agent writes ``--changed`` notes, each a near copy of a seeded one,
and the ``dedup_scan`` job runs as the worker runs it (its default: incremental, its
unchanged notes from the snapshot; ``--no-snapshot``: every vector from MongoDB), every
block in this process (the broker is ``memory://``: no other worker). Prints the job's
time, its stats and the load average, and one JSON line. ``QQ_STORE_TIMEOUT_MS`` is 30 s
here (see the comment where it is set).

``--full``: the full scan instead (issue 28: "Dedup reads vectors from the local snapshot
when it is in step"): the process's vector index opens the snapshot and catches up first
(timed apart, as a worker's index has at start), then the job takes every vector from it
(``--no-snapshot``: from MongoDB).

``--in-process N``: no server; a segment of N unit rows saved as the vector index saves
one, and the incremental plan on it (``ScanQueue.prepare_on_base``, ``--changed`` fresh
rows near copies of saved ones) computed by one process: the scan's maths and file work
at sizes a server here cannot be seeded to in the time (the MongoDB reads scale with the
changed notes, not with N: see the server run).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import (
    agent_notes,
    clustered,
    django_in,
    load,
    port_free,
    scratch_dir,
    start_server,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--changed", type=int, default=1_000)
    parser.add_argument("--port", type=int, default=29610)
    parser.add_argument("--server", choices=("py", "rust"), default="py")
    parser.add_argument("--no-snapshot", action="store_true")
    parser.add_argument("--full", action="store_true", help="the full scan, not incremental")
    parser.add_argument("--in-process", type=int, default=0)
    parser.add_argument("--skip-full-read", action="store_true", help="not the old read, alone")
    parser.add_argument("--out", default="", help="also write bench/results/<out>.json")
    args = parser.parse_args()
    if args.in_process:
        in_process(args.in_process, args.changed)
        return
    work = scratch_dir("qqweb-dedup-incremental-")
    port = args.port
    while not port_free(port):
        port += 1
    binary = ROOT / (
        "var/cargo/bin/secantusd-rs" if args.server == "rust" else ".venv/bin/secantusd-py"
    )
    uri, server = start_server(args.server, str(binary), port)
    (work / "memory").mkdir()
    try:
        django_in(
            work,
            uri,
            QQ_EMBEDDING_BACKEND="hashing",
            QQ_VECTOR_WARM_UP=os.environ.get("QQ_VECTOR_WARM_UP", "1"),  # as it ran before
            QQ_DEDUP_FROM_SNAPSHOT="0" if args.no_snapshot else "1",
        )
        from django.utils import timezone

        from memory_app.notes.lib.documents import utcnow_naive
        from memory_app.notes.stores import notes_store
        from qqweb.jobs.models import Run
        from qqweb.jobs.runner import job_create, job_run
        from qqweb.lib.actors import Actor

        store = notes_store()
        store.ensure_indexes()
        month_ago = utcnow_naive() - timedelta(days=30)
        t = time.perf_counter()
        vectors = clustered(args.n, 384, seed=5)
        for start in range(0, args.n, 5_000):
            docs = agent_notes(start, min(args.n, start + 5_000), vectors[start : start + 5_000])
            for i, doc in enumerate(docs, start=start):
                doc["updated_at"] = doc["created_at"] = month_ago - timedelta(minutes=args.n - i)
            store.collection.insert_many(docs, ordered=False)
        seed_s = time.perf_counter() - t
        snapshot_s = 0.0
        if not args.no_snapshot:
            from django.conf import settings

            from memory_app.notes.lib.replica.segments import EXACT_BELOW
            from memory_app.notes.lib.replica.state import build_snapshot

            t = time.perf_counter()
            root = (
                Path(settings.QQ_VECTOR_DIR)
                / f"{settings.QQ_MONGO_DB}.{settings.QQ_MONGO_COLLECTION}"
            )
            build_snapshot(store.vector_rows(), store.index_generation(), root, EXACT_BELOW)
            snapshot_s = time.perf_counter() - t
        Run.objects.create(  # the last complete scan, an hour ago
            kind="dedup_scan",
            started_by="bench",
            params={"threshold": 0.85, "full": True},
            status=Run.DONE,
            started_at=timezone.now() - timedelta(hours=1),
            finished_at=timezone.now() - timedelta(minutes=50),
        )
        rng = np.random.default_rng(9)
        picked = rng.choice(args.n, args.changed, replace=False)
        near = vectors[picked] + rng.normal(scale=0.01, size=(args.changed, 384))
        now = utcnow_naive()
        fresh = agent_notes(args.n, args.n + args.changed, near)
        for doc in fresh:
            doc["updated_at"] = doc["created_at"] = now
        store.collection.insert_many(fresh, ordered=False)
        catch_up_s = 0.0
        if args.full and not args.no_snapshot:  # a worker's index is caught up at start
            t = time.perf_counter()
            assert store.vector_index.wait_caught_up(timeout=1200), "no catch-up in 20 min"
            catch_up_s = time.perf_counter() - t
        params = {"threshold": 0.85, **({"full": True} if args.full else {})}
        run = job_create(kind="dedup_scan", actor=Actor.job("bench"), params=params)
        before = load()
        t = time.perf_counter()
        stats = job_run(run=run)
        seconds = time.perf_counter() - t
        # the job's two reads again, alone: every vector, then the changed notes' ids
        t = time.perf_counter()
        if not args.skip_full_read:
            store.vectors_by_dimension()
        read_s = time.perf_counter() - t
        t = time.perf_counter()
        store.note_ids_changed_since(month_ago + timedelta(days=29))
        changed_s = time.perf_counter() - t
        result = {
            "read_vectors_s": round(read_s, 2),
            "changed_ids_s": round(changed_s, 2),
            "n": args.n,
            "changed": args.changed,
            "seconds": round(seconds, 2),
            "load_before": before,
            "load_after": load(),
            "seed_s": round(seed_s, 1),
            "snapshot_s": round(snapshot_s, 1),
            "full": args.full,
            "index_catch_up_s": round(catch_up_s, 1),
            "server": args.server,
            "stats": {k: v for k, v in stats.items() if k != "sample"},
        }
        print(
            f"{'full' if args.full else 'incremental'} dedup job, {stats.get('compared')}: "
            f"{seconds:.1f} s "
            f"[load {before:.1f} -> {load():.1f}], {stats.get('pairs_found')} pairs, "
            f"{stats.get('queued')} queued, vectors from {stats.get('vectors_read_from')} "
            f"({args.server} server; seeding {seed_s:.0f} s and the index's snapshot "
            f"{snapshot_s:.0f} s apart); reading every "
            f"vector {read_s:.1f} s, the changed ids {changed_s:.2f} s [load {load():.1f}]"
        )
        print(json.dumps(result))
        if args.out:
            (ROOT / "bench" / "results" / f"{args.out}.json").write_text(
                json.dumps(result, indent=2) + "\n"
            )
    finally:
        server.terminate()
        server.wait(timeout=30)


def in_process(n: int, changed: int) -> None:
    """The incremental plan on a saved segment of ``n`` rows, computed here (no server)."""
    import resource

    from memory_app.notes.lib.dedup.pair_queue import ScanQueue
    from memory_app.notes.lib.replica.segments import build_segment

    work = Path(tempfile.mkdtemp(prefix="qqweb-dedup-base-"))
    vectors = clustered(n, 384, seed=5)
    ids = [f"note_{i:012x}" for i in range(n)]
    build_segment(384, ids, [""] * n, vectors, work / "index", exact_below=10**12)
    segment = next((work / "index").glob("d384-*"))
    rng = np.random.default_rng(9)
    picked = rng.choice(n, changed, replace=False)
    near = vectors[picked] + rng.normal(scale=0.01, size=(changed, 384)).astype(np.float32)
    fresh_ids = [f"note_{i:012x}" for i in range(n, n + changed)]
    del vectors
    before = load()
    t = time.perf_counter()
    queue = ScanQueue(work / "scans", "run-1")
    (queue.path / "d384").mkdir(parents=True)
    os.link(segment / "vectors.npy", queue.path / "d384" / "base.npy")
    os.link(segment / "ids.npy", queue.path / "d384" / "base_ids.npy")
    blocks, notes, count = queue.prepare_on_base(
        {384: n}, {384: (fresh_ids, near)}, set(fresh_ids), set(fresh_ids), 0.85
    )
    plan_s = time.perf_counter() - t
    while (ref := queue.next_claim()) is not None:
        queue.compute(ref)
    pairs = queue.pairs()
    seconds = time.perf_counter() - t
    peak_gb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
    print(
        f"incremental dedup on a saved segment, {count:,} changed against {notes:,}: "
        f"{seconds:.1f} s [load {before:.1f} -> {load():.1f}] (plan {plan_s:.2f} s), "
        f"{blocks} blocks, {len(pairs)} pairs, peak RSS {peak_gb:.2f} GB "
        f"(OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')})"
    )
    queue.remove()
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
