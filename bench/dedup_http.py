"""The full duplicate scan as a user starts it (issue 35's rows "full dedup scan through
Celery", at 100k and 1M): ``POST /api/maintenance/dedup_scan`` with ``{"params": {"full":
true}}`` over HTTP to gunicorn (``-c qqweb/gunicorn.conf.py``, 3 workers, DEBUG off), run
by a real Celery worker started as docker-compose.yml starts it (``celery -A qqweb worker
--concurrency=2``: the prefork pool), on SecantusDB's ``--server`` holding ``--n``
agent-shaped notes plus ``--changed`` near copies of some of them (the pairs to find).

    .venv/bin/python bench/dedup_http.py --n 100000 --server py     # make dev's daemon
    .venv/bin/python bench/dedup_http.py --n 1000000 --server rust

The notes are seeded (``bench/server_scale.seed``), then this process's vector index reads
them and saves its snapshot (what a web process does at its first start), gunicorn and the
worker start (the broker is kombu's SQLAlchemy transport on a SQLite file, ``make dev``'s
default: no Redis), and the scan is asked for once every process is idle (the worker's
index caught up from the snapshot, as a worker that has been running). Timed from the
POST to the run's status "done", polled at ``/api/maintenance/runs/<id>`` every 0.25 s;
beside it the 1-minute load, the server's and the worker's (all its processes') peak
resident memory sampled every 0.5 s (RSS summed, which counts a page shared by the pool's
processes in each, and PSS, which counts it once), and the server's VmHWM. Results:
``bench/results/<out>.{json,md}`` (default ``dedup_http_<server>_<n>``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np

import qqweb  # noqa: F401  (first: one BLAS thread per process, as in every qqweb process)
from bench.cold_start import status_mb
from bench.common import (
    Figure,
    Row,
    agent_notes,
    clustered,
    load,
    port_free,
    rss_mb,
    scratch_dir,
    start_server,
    wait_idle,
)

POLL_S = 0.25


def free_port(port: int) -> int:
    while not port_free(port):
        port += 1
    return port


def admin_token() -> str:
    """An admin's API token in the bench's database (shared with gunicorn)."""
    from django.contrib.auth.models import Group, User

    from qqweb.lib.auth import ADMIN
    from qqweb.services import api_token_create, roles_ensure

    roles_ensure()
    user, _ = User.objects.get_or_create(username="bench-admin")
    user.groups.add(Group.objects.get(name=ADMIN))
    return api_token_create(user=user, name="bench dedup")[1]


def api(port: int, token: str, path: str, body: dict[str, Any] | None = None) -> Any:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api{path}",
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        method="GET" if body is None else "POST",
    )
    with urllib.request.urlopen(request, timeout=120) as response:  # noqa: S310 - loopback
        return json.loads(response.read())


def near_copies(n: int, changed: int, dim: int) -> list[dict[str, Any]]:
    """``changed`` notes, each a near copy of one of the first seeded ones."""
    base = clustered(min(n, 10_000), dim, seed=1)  # the first chunk ``seed`` wrote
    rng = np.random.default_rng(9)
    picked = rng.choice(len(base), min(changed, len(base)), replace=False)
    near = base[picked] + rng.normal(scale=0.01, size=(len(picked), dim))
    return agent_notes(n, n + len(picked), near.astype(np.float32))


def tree_pids(pid: int) -> list[int]:
    """``pid`` and its descendants (a prefork worker's pool)."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        children = []
    return [pid, *(p for c in children for p in tree_pids(int(c)))]


def tree_rss_mb(pid: int) -> int:
    """Resident memory of ``pid`` and its children, summed (shared pages once each)."""
    return sum(rss_mb(p) for p in tree_pids(pid))


def pss_mb(pid: int) -> int:
    """``pid``'s proportional set size: its private pages, and its share of the pages it
    shares (the snapshot's memory map, the model): summed over a pool, each page once."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) // 1024
    except OSError:
        pass
    return 0


def tree_pss_mb(pid: int) -> int:
    return sum(pss_mb(p) for p in tree_pids(pid))


class Peaks:
    """The largest resident memory of each watched process (tree), every 0.5 s."""

    def __init__(self, pids: dict[str, int]) -> None:
        self.pids = pids
        self.peak = dict.fromkeys(pids, 0)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            for name, pid in self.pids.items():
                self.peak[name] = max(self.peak[name], tree_rss_mb(pid))
                pss = f"{name} PSS"
                self.peak[pss] = max(self.peak.get(pss, 0), tree_pss_mb(pid))
            self._stop.wait(0.5)

    def stop(self) -> dict[str, int]:
        self._stop.set()
        self._thread.join()
        return self.peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--changed", type=int, default=1_000)
    parser.add_argument("--server", choices=("rust", "py"), default="py")
    parser.add_argument("--port-base", type=int, default=29660)
    parser.add_argument("--embedder", default="minilm", choices=("minilm", "hashing"))
    parser.add_argument("--out", default="")
    args = parser.parse_args()
    from bench.scale import django_setup, servers

    found = dict(servers(args.server))
    if args.server not in found:
        raise SystemExit(f"no {args.server} server here: nothing measured")
    port = free_port(args.port_base)
    uri, server = start_server(args.server, found[args.server], port)
    work = scratch_dir("qqweb-dedup-http-")
    os.environ.update(
        {
            "MONGODB_URI": uri,
            "QQ_MONGO_DB": f"bench_dedup_{args.n}",
            "NEO4J_URI": f"bolt://127.0.0.1:{port + 1}",  # nothing listens: graph down
            "CELERY_BROKER_URL": f"sqla+sqlite:///{work / 'broker.sqlite3'}",
            "QQ_VECTOR_WARM_UP": "1",  # the worker opens its index at start
        }
    )
    django_setup(work, args.embedder)
    gunicorn = worker = None
    row = Row(f"full dedup scan through Celery, {args.n:,} notes, {args.server} server")
    result: dict[str, Any] = {"n": args.n, "changed": args.changed, "server": args.server}
    started = time.perf_counter()
    try:
        from bench.first_search_http import launch
        from bench.pages_browser import WORKERS
        from bench.server_scale import seed
        from memory_app.notes.stores import notes_store
        from tests.services import start_celery_worker, stop

        print(f"cores {os.cpu_count()}, load {load():.1f} at the start", flush=True)
        store = notes_store()
        seconds = seed(uri, args.n, 384, prepare=store.ensure_indexes)
        store.collection.insert_many(near_copies(args.n, args.changed, 384), ordered=False)
        store.ensure_indexes()
        print(f"  seeded {args.n:,} + {args.changed:,} notes in {seconds:.0f} s", flush=True)
        t = time.perf_counter()
        assert store.vector_index.wait_caught_up(timeout=3600), "no index in an hour"
        result["snapshot_s"] = round(time.perf_counter() - t, 1)
        store.vector_index.close()  # the web process's index: saved, no longer needed here
        token = admin_token()
        web_port = free_port(port + 2)
        gunicorn = launch(web_port, workers=WORKERS, production=True)
        worker = start_celery_worker({}, work, name="bench-dedup", pool=("--concurrency=2",))
        for pid in (server.pid, gunicorn.pid, worker.pid):
            wait_idle(pid, most_s=1800)
        for child in tree_pids(worker.pid)[1:]:
            wait_idle(child, most_s=1800)
        hwm_before = status_mb(server.pid, "VmHWM")
        peaks = Peaks({"server": server.pid, "worker": worker.pid})
        before = load()
        t = time.perf_counter()
        run = api(web_port, token, "/maintenance/dedup_scan", {"params": {"full": True}})
        while run["status"] in ("queued", "running"):
            time.sleep(POLL_S)
            run = api(web_port, token, f"/maintenance/runs/{run['id']}")
        seconds = time.perf_counter() - t
        peak = peaks.stop()
        assert run["status"] == "done", f"the run ended {run['status']}: {run['error']}"
        stats = run["stats"]
        note = f"{stats.get('pairs_found')} pairs, vectors from {stats.get('vectors_read_from')}"
        row.figures["POST to done"] = Figure(seconds * 1000, before, note)
        row.figures["server peak RSS (MB)"] = Figure(None, load(), f"{peak['server']:,} MB")
        row.figures["worker peak RSS, all its processes (MB)"] = Figure(
            None, load(), f"{peak['worker']:,} MB"
        )
        row.figures["worker peak PSS, all its processes (MB)"] = Figure(
            None, load(), f"{peak['worker PSS']:,} MB (shared pages counted once)"
        )
        hwm_after = status_mb(server.pid, "VmHWM")
        row.figures["server VmHWM before / after (MB)"] = Figure(
            None, load(), f"{hwm_before:,} / {hwm_after:,} MB"
        )
        result.update(
            seconds=round(seconds, 1),
            load_before=before,
            load_after=load(),
            peak_rss_mb=peak,
            server_hwm_mb=[hwm_before, hwm_after],
            stats={k: v for k, v in stats.items() if k != "sample"},
        )
        for name, figure in row.figures.items():
            print(f"  {name}: {figure.text()}", flush=True)
    finally:
        if worker is not None:
            stop(worker)
        if gunicorn is not None:
            gunicorn.terminate()
            gunicorn.wait(60)
        server.terminate()
        server.wait(60)
    out = ROOT / "bench" / "results" / (args.out or f"dedup_http_{args.server}_{args.n}")
    out.with_suffix(".json").write_text(json.dumps(result, indent=2))
    lines = [f"**{row.name}** (`bench/dedup_http.py`)", "", "| figure | value |", "|---|---|"]
    lines += [f"| {k} | {f.text()} |" for k, f in row.figures.items()]
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print(f"\nresults in {out}.md ({(time.perf_counter() - started) / 60:.1f} min)")


if __name__ == "__main__":
    main()
