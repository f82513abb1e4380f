"""Issue 28, "the embedded default at 100k notes, from cold": a first start of qqweb on an
existing memory held by SecantusDB's Python daemon (what ``make dev`` runs), with no
vector snapshot yet, measured the way a user meets it.

    .venv/bin/python bench/cold_start.py              # 100k notes of 384 floats
    .venv/bin/python bench/cold_start.py --n 20000    # a smaller run
    .venv/bin/python bench/cold_start.py --ids counter  # note_000001... (or uuid4)

1. A fresh ``secantusd-py`` on ``--port`` with its own data directory under /tmp is seeded
   with ``--n`` agent-shaped notes (clustered random vectors, ``bench/server_scale.seed``,
   with the ids the agent gives: ``note_`` + 12 hex of a uuid4) and the agent's indexes,
   then stopped and started again on the same directory, so its peak memory (VmHWM) is
   the cold start's, not the seeding's. The seeding (about 45 s at 100k) and the indexes
   (about 2 minutes) are skipped with ``--data`` (a directory an earlier run seeded).
2. gunicorn (one worker, ``--threads`` threads, DEBUG off, hashing embedder of 384
   dimensions, an empty ``QQ_VECTOR_DIR``, ``QQ_VECTOR_WARM_UP=1``:
   ``bench/first_search_http.launch``) starts; from its launch one thread asks
   ``POST /api/notes/search`` every 0.25 s until it is answered, another asks a page every
   0.25 s meanwhile, in turn the notes list (``GET /api/notes?limit=20``, answered from the
   read model, "loading" meanwhile) and one note by id (``GET /api/notes/<id>``, a read
   from the daemon: it waits for whatever query the daemon is in), and a third samples
   the daemon's and the worker's RSS every 0.5 s.

Printed, each with the 1-minute load average beside it: the seconds to the first search
answered, the longest a page request waited meanwhile, how many searches were told
"loading" (503), the daemon's peak memory (VmHWM at the end) and its largest sampled RSS,
the worker's largest sampled RSS. Results: bench/results/cold_start.json and .md.
Everything started here (daemon, gunicorn) is stopped at the end. At 100k on this machine
(2 cores shared, load 2-3) the whole run took 109 s (158 s another time: seeding 35 s,
the indexes 61 s), the cold start itself under 40 s (36 s with ``--data``).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np

import qqweb  # noqa: F401  (first: one BLAS thread per process, as in every qqweb process)
from bench.common import Figure, Row, agent_notes, clustered, load, scratch_dir, start_server

POLL_S = 0.25


def status_mb(pid: int, key: str) -> int:
    """``key`` (VmRSS, VmHWM) of ``pid`` from /proc, in MB (0 when it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(f"{key}:"):
                return int(line.split()[1]) // 1024
    except OSError:
        pass
    return 0


def children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def get(url: str, token: str) -> tuple[int, float]:
    """One GET: (status, seconds); status 0 while nothing listens."""
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})  # noqa: S310
    t = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=120) as response:  # noqa: S310 - loopback
            response.read()
            return response.status, time.perf_counter() - t
    except urllib.error.HTTPError as e:
        e.read()
        return e.code, time.perf_counter() - t
    except OSError:
        return 0, time.perf_counter() - t


class Watch:
    """What the threads saw, from the launch of gunicorn."""

    def __init__(self) -> None:
        self.launched = time.perf_counter()
        self.done = threading.Event()
        self.answered: float | None = None
        self.told_loading = 0
        self.searches = 0
        self.pages: dict[str, list[tuple[int, float, float]]] = {"list": [], "note": []}
        self.rss: list[tuple[float, int, int, float]] = []  # (s, daemon MB, worker MB, load)

    def since(self) -> float:
        return time.perf_counter() - self.launched


def search_until_answered(watch: Watch, port: int, token: str, give_up: float) -> None:
    from bench.first_search_http import _ask

    try:
        while watch.since() < give_up:
            status, _, said = _ask(port, token)
            if status:
                watch.searches += 1
            if status == 200:
                watch.answered = watch.since()
                return
            if status == 503:
                watch.told_loading += 1
            elif status:
                raise RuntimeError(f"the search answered HTTP {status}: {said}")
            time.sleep(POLL_S)
    finally:
        watch.done.set()


def ask_pages(watch: Watch, port: int, token: str, note_id: str) -> None:
    base = f"http://127.0.0.1:{port}/api/notes"
    urls = {"list": f"{base}?limit=20", "note": f"{base}/{note_id}"}
    turn = 0
    while not watch.done.is_set():
        kind = ("list", "note")[turn % 2]
        turn += 1
        status, seconds = get(urls[kind], token)
        if status:
            watch.pages[kind].append((status, seconds, watch.since()))
        watch.done.wait(POLL_S)


def sample_memory(watch: Watch, daemon: int, gunicorn: int) -> None:
    while not watch.done.wait(0.5):
        worker = sum(status_mb(p, "VmRSS") for p in children(gunicorn))
        watch.rss.append((round(watch.since(), 1), status_mb(daemon, "VmRSS"), worker, load()))


ID_SHAPES = ("agent", "counter", "uuid4")


def note_ids(n: int, shape: str = "agent") -> list[str]:
    """The ids the agent gives new notes (``note_`` + 12 hex of a uuid4: uniform),
    deterministic; or a counter's (``note_000001``..., issue 35: the loader of that time
    never finished at 100k), or uuid4s."""
    rng = np.random.default_rng(28)
    if shape == "counter":
        return [f"note_{i:06d}" for i in range(1, n + 1)]
    if shape == "uuid4":
        return [str(uuid.UUID(bytes=rng.bytes(16), version=4)) for _ in range(n)]
    ids: dict[str, None] = {}
    while len(ids) < n:
        ids.update(dict.fromkeys(f"note_{x:012x}" for x in rng.integers(0, 16**12, n)))
    return list(ids)[:n]


def seed(uri: str, n: int, dim: int, shape: str = "agent") -> float:
    """``server_scale.seed``'s notes with the agent's ids; the seconds it took."""
    from django.conf import settings
    from pymongo import MongoClient

    client: MongoClient[dict[str, Any]] = MongoClient(uri)
    collection = client[settings.QQ_MONGO_DB][settings.QQ_MONGO_COLLECTION]
    collection.drop()
    ids = note_ids(n, shape)
    t = time.perf_counter()
    for start in range(0, n, 10_000):
        stop = min(n, start + 10_000)
        docs = agent_notes(start, stop, clustered(stop - start, dim, seed=start + 1))
        for doc, note_id in zip(docs, ids[start:stop], strict=True):
            doc["note_id"] = note_id
        for i in range(0, len(docs), 1000):
            collection.insert_many(docs[i : i + 1000], ordered=False)
    client.close()
    return time.perf_counter() - t


def seed_daemon(args: argparse.Namespace, binary: str, data: str) -> None:
    """``args.n`` notes and the agent's indexes on a daemon started for it, then stopped."""
    from django.conf import settings
    from pymongo import MongoClient

    from memory_app.notes.lib.mongo_store import MongoNotesStore

    uri, proc = start_server("py", binary, args.port, data)
    try:
        seconds = seed(uri, args.n, args.dim, args.ids)
        print(f"seeded {args.n:,} notes in {seconds:.0f} s [load {load():.1f}]", flush=True)
        t = time.perf_counter()
        client: MongoClient[dict[str, Any]] = MongoClient(uri, tz_aware=False)
        MongoNotesStore(
            database=settings.QQ_MONGO_DB, collection=settings.QQ_MONGO_COLLECTION, client=client
        ).ensure_indexes()
        client.close()
        print(f"indexes in {time.perf_counter() - t:.0f} s [load {load():.1f}]", flush=True)
    finally:
        proc.terminate()
        proc.wait(120)


def rows_of(watch: Watch, daemon_hwm: int, worker_hwm: int, args: argparse.Namespace) -> Row:
    row = Row(f"cold start at {args.n:,} notes ({args.ids} ids), secantusd-py, no vector snapshot")
    f = row.figures
    note = "" if watch.answered is not None else f"not answered in {args.give_up:.0f} s"
    f["first search answered"] = Figure(
        watch.answered * 1000 if watch.answered is not None else None, load(), note
    )
    # the worker answers nothing before Django is imported: the page waits counted are
    # those of requests sent after its first answer
    up = min((at for seen in watch.pages.values() for _, _, at in seen), default=0.0)
    f["web process first answered"] = Figure(up * 1000, load())
    for kind, what in (("list", "notes list"), ("note", "one note by id")):
        seen = [s for s in watch.pages[kind] if s[2] - s[1] >= up]
        worst = max(seen, key=lambda s: s[1], default=None)
        statuses = sorted({s[0] for s in seen})
        f[f"longest {what} request"] = (
            Figure(worst[1] * 1000, load(), f"at {worst[2]:.0f} s; {len(seen)} asked, {statuses}")
            if worst
            else Figure(None, load(), "none answered")
        )
    f["searches told loading (503)"] = Figure(None, load(), f"{watch.told_loading} times")
    peak = max(watch.rss, key=lambda r: r[1], default=(0, 0, 0, load()))
    f["daemon VmHWM (MB)"] = Figure(None, load(), f"{daemon_hwm:,} MB")
    f["daemon largest sampled RSS (MB)"] = Figure(None, peak[3], f"{peak[1]:,} MB at {peak[0]} s")
    f["qqweb worker VmHWM (MB)"] = Figure(None, load(), f"{worker_hwm:,} MB")
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=100_000, help="notes to seed")
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--port", type=int, default=29600, help="the daemon's")
    parser.add_argument("--web-port", type=int, default=29601, help="gunicorn's")
    parser.add_argument("--threads", type=int, default=4, help="gunicorn's worker threads")
    parser.add_argument("--give-up", type=float, default=600.0, help="seconds")
    parser.add_argument("--out", default="cold_start")
    parser.add_argument(
        "--data", default="", help="a data directory an earlier run seeded with --n notes"
    )
    parser.add_argument("--ids", choices=ID_SHAPES, default="agent", help="the note ids' shape")
    args = parser.parse_args()
    started = time.perf_counter()
    binary = str(ROOT / ".venv/bin/secantusd-py")
    work = scratch_dir("qqweb-cold-")
    from bench.scale import django_setup

    django_setup(work, "hashing")  # the vectors are random: no model needed to ask
    from django.conf import settings

    settings.QQ_MONGO_DB = f"cold_{args.n}"
    for port in (args.port, args.web_port):  # listened on (a connection in TIME-WAIT is not)
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                raise SystemExit(f"port {port} is taken")
    print(f"cores {os.cpu_count()}, load {load():.1f} at the start", flush=True)
    data = args.data or tempfile.mkdtemp(prefix="qqweb-cold-daemon-")
    if not args.data:
        seed_daemon(args, binary, data)
        print(f"the daemon's data: {data} (--data {data} runs again without seeding)")
    uri, daemon = start_server("py", binary, args.port, data)  # the user's existing memory
    settings.MONGODB_URI = uri
    settings.QQ_VECTOR_DIR = str(work / "vectors")  # empty: no snapshot yet
    at_start = status_mb(daemon.pid, "VmRSS")  # mostly its WiredTiger cache (1 GB)
    print(f"daemon restarted: RSS {at_start:,} MB", flush=True)
    from bench.first_search_http import _token, launch

    token = _token()
    watch = Watch()
    web = launch(args.web_port, threads=args.threads)
    threads = [
        threading.Thread(
            target=search_until_answered, args=(watch, args.web_port, token, args.give_up)
        ),
        threading.Thread(
            target=ask_pages,
            args=(watch, args.web_port, token, note_ids(args.n, args.ids)[args.n // 2]),
        ),
        threading.Thread(target=sample_memory, args=(watch, daemon.pid, web.pid)),
    ]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        daemon_hwm = status_mb(daemon.pid, "VmHWM")
        worker_hwm = max((status_mb(p, "VmHWM") for p in children(web.pid)), default=0)
    finally:
        watch.done.set()
        web.terminate()
        web.wait(60)
        daemon.terminate()
        daemon.wait(120)
    row = rows_of(watch, daemon_hwm, worker_hwm, args)
    row.figures["daemon RSS before qqweb started"] = Figure(None, load(), f"{at_start:,} MB")
    total = time.perf_counter() - started
    print(f"\n{row.name} (whole run {total:.0f} s)")
    for name, figure in row.figures.items():
        print(f"  {name}: {figure.text()}")
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    data_out = {
        "row": row.name,
        "n": args.n,
        "whole_run_s": round(total),
        **{k: vars(f) for k, f in row.figures.items()},
        "rss_samples": watch.rss,
        "pages": watch.pages,
    }
    (out / f"{args.out}.json").write_text(json.dumps(data_out, indent=2))
    lines = [f"## {row.name}", "", "| figure | value |", "|---|---|"]
    lines += [f"| {name} | {figure.text()} |" for name, figure in row.figures.items()]
    lines += ["", f"Whole run: {total:.0f} s. Written by `bench/cold_start.py`.", ""]
    (out / f"{args.out}.md").write_text("\n".join(lines))
    print(f"\nresults in {out / args.out}.md and .json")


if __name__ == "__main__":
    main()
