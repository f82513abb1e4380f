"""The first search after a restart at 100k and 1M notes (three workers), with each
worker's memory, the load average beside every figure.

    .venv/bin/python bench/restart.py                          # 100k and 1M, 5 restarts
    .venv/bin/python bench/restart.py --sizes 100000 --restarts 2 --embedder hashing

For each size: a fresh server (SecantusDB's Rust server ``secantusd-rs`` when it is
installed, else the Python daemon, and said so) is seeded with ``n`` agent-shaped notes
(``bench/common.agent_notes``), and the vector snapshot a qqweb process saves is
built in this process from the very same documents (their ``_id`` and stamps included), so
a started process finds it and its catch-up finds nothing changed. At 100k the documents
hold their embeddings; **at 1M they are seeded without embeddings** (1M full notes do not
fit in a run on this machine) and only the snapshot holds the vectors: the process that
starts reads the same ids and stamps from MongoDB as if they had them, and answers a
search from the snapshot as it would.

Then, ``--restarts`` times: gunicorn (``--workers``, DEBUG off, the production config) is
launched, and ``POST /api/notes/search`` asked every 0.25 s from the launch until one is
answered, with the real all-MiniLM-L6-v2 embedder (``--embedder hashing``: no model).
Reported per restart and as the median and worst of the restarts:

- the first search: seconds from the launch to the first 200 (Python, Django, the model
  and the index all start in it);
- the longest any one request waited (one that comes before the model or the index is
  ready is told "loading", 503, it never hangs);
- each worker's memory once the first search is answered and again ``SETTLE_S`` later
  (all three workers opened the index by then): private (``Private_Clean +
  Private_Dirty`` of ``/proc/<pid>/smaps_rollup``: the memory that worker alone holds) and
  shared (the memory-mapped snapshot and the model's pages the workers share) in MB.

Results: bench/results/restart.json and restart.md. Takes about 20 min (most of it the
1M seeding and snapshot); ``--sizes 100000`` about 4 min.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import qqweb  # noqa: F401  (first: one BLAS thread per process)
from bench.common import (
    agent_notes,
    clustered,
    load,
    port_free,
    start_server,
)
from bench.scale import django_setup, servers

POLL_S = 0.25
GIVE_UP_S = 300.0
SETTLE_S = 10.0
CHUNK = 10_000


def smaps(pid: int) -> dict[str, int]:
    """``/proc/<pid>/smaps_rollup`` in kB."""
    out: dict[str, int] = {}
    try:
        lines = Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()
    except OSError:
        return out
    for line in lines:
        parts = line.split()
        if len(parts) >= 2 and parts[0].endswith(":") and parts[1].isdigit():
            out[parts[0][:-1]] = int(parts[1])
    return out


def memory_mb(pid: int) -> dict[str, int]:
    """Private and shared memory of one process, in MB."""
    m = smaps(pid)
    return {
        "private": (m.get("Private_Clean", 0) + m.get("Private_Dirty", 0)) // 1024,
        "shared": (m.get("Shared_Clean", 0) + m.get("Shared_Dirty", 0)) // 1024,
        "rss": m.get("Rss", 0) // 1024,
    }


def workers_of(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return sorted(int(p) for p in text.split())


def seed_and_snapshot(uri: str, n: int, with_embeddings: bool) -> float:
    """Seed ``n`` notes and build the snapshot qqweb would save from the same documents."""
    from django.conf import settings
    from pymongo import MongoClient

    from memory_app.notes.lib.replica.segments import EXACT_BELOW
    from memory_app.notes.lib.replica.state import build_snapshot

    client: Any = MongoClient(uri)
    collection = client[settings.QQ_MONGO_DB][settings.QQ_MONGO_COLLECTION]
    collection.drop()
    started = time.perf_counter()

    def docs() -> Iterator[dict[str, Any]]:
        for start in range(0, n, CHUNK):
            stop = min(n, start + CHUNK)
            notes = agent_notes(start, stop, clustered(stop - start, 384, seed=start + 1))
            stored = [note if with_embeddings else {**note, "embedding": []} for note in notes]
            for i in range(0, len(stored), 1000):
                collection.insert_many(stored[i : i + 1000], ordered=False)  # sets _id
            for note, saved in zip(notes, stored, strict=True):
                note["_id"] = saved["_id"]
                yield note
            print(f"    seeded {stop:,} notes ({time.perf_counter() - started:.0f} s)", flush=True)

    root = Path(settings.QQ_VECTOR_DIR) / f"{settings.QQ_MONGO_DB}.{settings.QQ_MONGO_COLLECTION}"
    build_snapshot(docs(), 0, root, EXACT_BELOW)
    client.close()
    return time.perf_counter() - started


def one_restart(port: int, token: str, workers: int) -> dict[str, Any]:
    from bench.first_search_http import _ask, launch

    launched = time.perf_counter()
    proc = launch(port, workers=workers, production=True)
    out: dict[str, Any] = {"first_s": None, "longest_s": 0.0, "loading_503": 0}
    try:
        while time.perf_counter() - launched < GIVE_UP_S:
            status, seconds, said = _ask(port, token)
            if status:
                out["longest_s"] = max(out["longest_s"], seconds)
            if status == 200:
                out["first_s"] = time.perf_counter() - launched
                break
            if status == 503:
                out["loading_503"] += 1
            elif status:
                raise RuntimeError(f"the search answered HTTP {status}: {said}")
            time.sleep(POLL_S)
        out["load"] = load()
        out["memory_first"] = [memory_mb(p) for p in workers_of(proc.pid)]
        time.sleep(SETTLE_S)
        for _ in range(2 * workers):  # likely reaches every worker: each opens its index
            _ask(port, token)
        out["memory_settled"] = [memory_mb(p) for p in workers_of(proc.pid)]
    finally:
        proc.terminate()
        proc.wait(60)
    return out


def summary(size: int, runs: list[dict[str, Any]]) -> dict[str, Any]:
    firsts = [r["first_s"] for r in runs if r["first_s"] is not None]
    settled = [m for r in runs for m in r["memory_settled"]]
    return {
        "size": size,
        "first_search_s_median": round(statistics.median(firsts), 2) if firsts else None,
        "first_search_s_worst": round(max(firsts), 2) if firsts else None,
        "longest_request_s_worst": round(max(r["longest_s"] for r in runs), 2),
        "private_mb_worst": max((m["private"] for m in settled), default=None),
        "shared_mb_worst": max((m["shared"] for m in settled), default=None),
        "loads": [r["load"] for r in runs],
    }


def markdown(result: dict[str, Any]) -> str:
    lines = [
        f"# The first search after a restart ({result['workers']} workers, "
        f"{result['server']} server, {result['embedder']} embedder)",
        "",
        "| notes | restart | first search | longest request | told loading | "
        "private MB per worker (settled) | shared MB | load |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for size in result["sizes"]:
        for k, r in enumerate(size["runs"], 1):
            private = ", ".join(str(m["private"]) for m in r["memory_settled"])
            shared = max((m["shared"] for m in r["memory_settled"]), default=0)
            first = "-" if r["first_s"] is None else f"{r['first_s']:.1f} s"
            lines.append(
                f"| {size['size']:,} | {k} | {first} | {r['longest_s']:.1f} s | "
                f"{r['loading_503']} | {private} | {shared} | {r['load']:.1f} |"
            )
    lines += [
        "",
        "| notes | first search median / worst | longest request | "
        "private MB (worst worker) | shared MB | loads |",
        "|---|---|---|---|---|---|",
    ]
    for size in result["sizes"]:
        s = size["summary"]
        lines.append(
            f"| {s['size']:,} | {s['first_search_s_median']} s / {s['first_search_s_worst']} s "
            f"| {s['longest_request_s_worst']} s | {s['private_mb_worst']} | "
            f"{s['shared_mb_worst']} | {', '.join(f'{x:.1f}' for x in s['loads'])} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--restarts", type=int, default=5)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--embedder", choices=("minilm", "hashing"), default="minilm")
    parser.add_argument("--port-base", type=int, default=29620)
    parser.add_argument("--server", choices=("rust", "py"), default="")
    args = parser.parse_args()

    found = servers(args.server or "rust,py")
    if not found:
        raise SystemExit("no SecantusDB server found")
    kind, binary = found[0]
    print(f"server: {kind} ({binary})", flush=True)
    work = Path(tempfile.mkdtemp(prefix="qqweb-bench-restart-"))
    django_setup(work, args.embedder)
    from bench.first_search_http import _token

    token = _token()
    result: dict[str, Any] = {
        "workers": args.workers,
        "server": kind,
        "embedder": args.embedder,
        "sizes": [],
    }
    port = args.port_base
    for size in [int(s) for s in args.sizes.split(",")]:
        from django.conf import settings

        while not port_free(port):
            port += 1
        uri, server = start_server(kind, binary, port)
        try:
            settings.MONGODB_URI = uri
            settings.QQ_MONGO_DB = f"bench_restart_{size}"
            settings.QQ_VECTOR_DIR = str(work / f"vectors-{size}")
            print(f"{size:,} notes: seeding and building the snapshot", flush=True)
            seconds = seed_and_snapshot(uri, size, with_embeddings=size <= 100_000)
            print(f"  seeded in {seconds:.0f} s", flush=True)
            web = port + 1
            while not port_free(web):
                web += 1
            runs = []
            for k in range(args.restarts):
                run = one_restart(web, token, args.workers)
                runs.append(run)
                private = [m["private"] for m in run["memory_settled"]]
                shared = [m["shared"] for m in run["memory_settled"]]
                first = "-" if run["first_s"] is None else f"{run['first_s']:.1f} s"
                print(
                    f"  restart {k + 1}: first search {first}, longest request "
                    f"{run['longest_s']:.1f} s, told loading {run['loading_503']}x, "
                    f"private MB {private}, shared MB {shared} [load {run['load']:.1f}]",
                    flush=True,
                )
            result["sizes"].append({"size": size, "runs": runs, "summary": summary(size, runs)})
        finally:
            server.terminate()
            server.wait(60)
            shutil.rmtree(str(server.args[-1]), ignore_errors=True)  # its --storage-path
        port = web + 1
    shutil.rmtree(work, ignore_errors=True)
    out = ROOT / "bench" / "results"
    out.mkdir(exist_ok=True)
    (out / "restart.json").write_text(json.dumps(result, indent=2, default=str))
    text = markdown(result)
    (out / "restart.md").write_text(text)
    print("\nthe first search after a restart at 100k and 1M (three workers)", end="")
    print(" with per-worker memory")
    print(text)


if __name__ == "__main__":
    main()
