"""The full dedup scan's blocks taken by 1 and by 2 real Celery workers (issue 14's "show 1
vs 2 workers"), in a child process of its own (its own Django settings, broker and
database under /tmp):

    .venv/bin/python bench/dedup_workers.py --n 100000 --workers 1,2

Redis is started on ``--port`` (29510, or the next free one). For each worker count the
scan's queue (snapshot + plan) is written once, as the run's coordinator does (timed
apart: "prepare"), the workers are started (solo pool, ``OMP_NUM_THREADS=1``: one BLAS
thread each, so 1 vs 2 workers is 1 vs 2 cores on this machine) and, once they are ready,
block tasks are sent; the time is from the first task sent to the last block written.
Prints one JSON line: ``{workers: {seconds, load, pairs, blocks}, prepare_s, ...}``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import Figure, Row, load, port_free, scratch_dir

ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def workers_row(n: int, port: int, counts: str = "1,2") -> Row:
    """The row of issue 14's table, from a child run of this script."""
    out = subprocess.run(
        [sys.executable, __file__, "--n", str(n), "--workers", counts, "--port", str(port)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    got = json.loads(out.stdout.strip().splitlines()[-1])
    row = Row(
        f"full dedup scan at 0.85, {n:,} notes, exact blocks shared by Celery workers "
        f"(1 BLAS thread each; prepare {got['prepare_s']:.1f} s apart)"
    )
    for k, fig in got["workers"].items():
        row.figures[f"{k} worker{'s' if k != '1' else ''}"] = Figure(
            fig["seconds"] * 1000, fig["load"], f"{fig['blocks']} blocks, {fig['pairs']:,} pairs"
        )
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--port", type=int, default=29510)
    args = parser.parse_args()
    from tests.services import start_celery_worker, stop

    work = scratch_dir("qqweb-dedup-workers-")
    port = args.port
    while not port_free(port):
        port += 1
    redis = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", ""],
        stdout=subprocess.DEVNULL,
        cwd=work,
    )
    broker = f"redis://127.0.0.1:{port}/0"
    env = {
        "DJANGO_SETTINGS_MODULE": "qqweb.settings",
        "DEBUG": "0",
        "DATABASE_URL": f"sqlite:///{work / 'bench.sqlite3'}",
        "MEMORY_DIR": str(work / "memory"),
        "QQ_VECTOR_DIR": str(work / "vectors"),
        "QQ_DEDUP_SCAN_DIR": str(work / "scans"),
        "CELERY_BROKER_URL": broker,
        "CELERY_RESULT_BACKEND": broker,
        "QQ_EMBEDDING_BACKEND": "hashing",
        "QQ_EMBEDDER_WARM_UP": "0",
        "QQ_FACTS_MONGO_URI": "",
        **ONE_THREAD,
    }
    os.environ.update(env)
    (work / "memory").mkdir()
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    from django.utils import timezone

    from bench.dedup_scale import planted
    from memory_app.notes.services.dedup_scan import scan_queue
    from memory_app.notes.tasks import dedup_block_task
    from qqweb.jobs.models import Run

    vectors = planted(args.n, seed=3)
    ids = [f"note_{i:012x}" for i in range(args.n)]
    result: dict[str, object] = {"n": args.n, "workers": {}}
    try:
        for count in [int(c) for c in args.workers.split(",")]:
            run = Run.objects.create(
                kind="dedup_scan",
                started_by="bench",
                status=Run.RUNNING,
                heartbeat_at=timezone.now(),
            )
            queue = scan_queue(run.pk)
            t = time.perf_counter()
            # the exact plan (QQ_DEDUP_EXACT_BELOW raised above n): about 50 blocks at 100k
            # to share; the pruned plan of 100k notes is one block (3 s), nothing to share
            blocks = queue.prepare({384: (ids, vectors)}, 0.85, exact_below=args.n + 1)
            result["prepare_s"] = time.perf_counter() - t
            procs = [start_celery_worker(env, work, name=f"bench{count}-{w}") for w in range(count)]
            try:
                t = time.perf_counter()
                for _ in range(4 * count):
                    dedup_block_task.delay(run.pk)
                while queue.pending():
                    time.sleep(0.1)
                seconds = time.perf_counter() - t
                pairs = len(queue.pairs())
            finally:
                for proc in procs:
                    stop(proc)
                queue.remove()
            figure = {"seconds": seconds, "load": load(), "pairs": pairs, "blocks": blocks}
            result["workers"][str(count)] = figure  # type: ignore[index]
            print(f"  {count} worker(s): {Figure(seconds * 1000, load()).text()}", file=sys.stderr)
    finally:
        stop(redis)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
