"""The pages as a browser gets them (issue 28): gunicorn started as production runs it
(``-c qqweb/gunicorn.conf.py``, 3 workers, DEBUG off) on SecantusDB's Rust server holding
``--n`` agent-shaped notes, a curator signed in through the login form, and p50 / p95 over
HTTP of the pages a user opens, once every worker's vector index is caught up; beside each,
the same question asked of the selectors in this process (no HTTP, no template: how the
README's page figures were measured before), labelled as such.

    .venv/bin/python bench/pages_http.py                    # 100k notes, Rust server
    .venv/bin/python bench/pages_http.py --n 10000 --server py --embedder hashing

``--first-minutes S`` (120): first the Overview and the "effective >= 0.9" list, for
``S`` s from the moment the workers answer, while they catch up (issue 35).

Then the Overview with an archive of 2,000 and of 50,000 lines (``archive.jsonl`` in the
contract's format, docs/ and ``memory_app/notes/lib/archive/entries.py``) over HTTP: the first
request after the whole file is written, the warm requests, and the first request after
the agent appends a line (each worker's ``ArchiveStatsCache`` parses only the new end).

No Neo4j, no broker and no Redis are started: the Overview's graph card says the graph is
down (a refused connection), the review queue has no pairs waiting. Seeding, the server
and gunicorn: ``bench/server_scale.seed``, ``bench/common.start_server``,
``bench/first_search_http.launch``; the signed-in curator: ``bench/pages_browser.py``.
Results: bench/results/pages_http.{json,md}; about 6 minutes at 100k on 2 cores (seeding
100k notes is 2-3 of them).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import qqweb  # noqa: F401  (first: one BLAS thread per process, as in every qqweb process)
from bench.common import (
    Figure,
    Row,
    load,
    port_free,
    sample,
    scratch_dir,
    start_server,
    timed_ms,
    wait_idle,
)
from bench.pages_browser import PASSWORD, WORKERS, Browser, curator, wait_workers_ready
from bench.scale import django_setup, servers

PACE_S = 0.3  # between two requests of one row


def archive_lines(count: int, start: int = 0) -> list[dict[str, Any]]:
    """Archive lines as the agent writes them (qq-data-contract.md, archive.jsonl)."""
    base = datetime(2026, 11, 1)
    reasons = (
        "low_importance",
        "importance_decay_0.031",
        "Consolidated with note_1 (similarity: 0.91)",
    )
    out = []
    for i in range(start, start + count):
        archived = base + timedelta(minutes=i)
        line: dict[str, Any] = {
            "note_id": f"archived_{i:010x}",
            "content": f"archived note {i}: an old thought about topic {i % 997}",
            "section": "Key Topics",
            "importance": 0.1,
            "reason": reasons[i % 3],
            "archived_at": archived.isoformat(),
            "original_created_at": (archived - timedelta(days=40)).isoformat(),
            "access_count": i % 7,
            "metadata": {},
        }
        if i % 2:
            line["source"] = {"source_type": "conversation", "source_id": f"session:{i % 50}"}
        out.append(line)
    return out


def measured(fn: Callable[[], Any], repeat: int) -> tuple[Figure, Figure]:
    p50, p95 = sample(fn, repeat, PACE_S)
    return Figure(p50, load()), Figure(p95, load())


def first_minutes_rows(browser: Browser, seconds: float) -> list[Row]:
    """The Overview and the "effective >= 0.9" list over HTTP right after the workers
    answer (catching up meanwhile), in turn every ``PACE_S`` for ``seconds``: p50, p95."""
    paths = {"Overview / in the first minutes": "/"}
    paths["effective >= 0.9 in the first minutes"] = "/notes/?min_effective=0.9"
    times: dict[str, list[float]] = {name: [] for name in paths}
    when: dict[str, list[float]] = {name: [] for name in paths}  # s after the first ask
    end = (start := time.perf_counter()) + seconds
    while time.perf_counter() < end:
        for name, path in paths.items():
            when[name].append(time.perf_counter() - start)
            times[name].append(timed_ms(partial(browser.get, path))[0])
            time.sleep(PACE_S)
    rows = []
    for name, taken in times.items():
        ordered = sorted(taken)
        row = Row(name)
        row.figures["over HTTP"] = Figure(ordered[len(ordered) // 2], load(), f"{len(taken)} asked")
        slowest = sorted(zip(taken, when[name], strict=True), reverse=True)[:5]  # and when
        said = "slowest " + ", ".join(f"{ms:.0f} ms at {at:.0f} s" for ms, at in slowest)
        row.figures["over HTTP p95"] = Figure(ordered[int(len(ordered) * 0.95)], load(), said)
        report(row)
        rows.append(row)
    return rows


def page_rows(browser: Browser, token: str, repeat: int) -> list[Row]:
    """Each page over HTTP and its selectors in-process."""
    from bench.server_scale import read_model_cursor
    from memory_app.notes.lib.listing import NoteFilter
    from memory_app.notes.selectors import (
        archive_browse,
        core_view,
        memory_insights,
        memory_overview,
        note_detail,
        notes_count,
        notes_list,
        notes_search,
        review_next,
    )
    from memory_app.notes.stores import notes_store

    index = notes_store().vector_index
    depth = 10_000
    cursor = read_model_cursor(index, NoteFilter(), "updated", depth)
    with index.reading() as model:
        some_ids = [model.ids[r].decode() for r in range(0, model.size, max(1, model.size // 40))]
    ids = iter(some_ids * 10)
    words = iter(f"{w} topic {i}" for i, w in enumerate(["billing", "deploy", "tea"] * 200))
    section = "Important Facts"

    def listed(flt: NoteFilter, c: str | None = None) -> None:
        notes_list(flt=flt, sort="updated", direction="desc", cursor=c, limit=50)
        notes_count(flt=flt)

    pages: list[tuple[str, Callable[[], Any], Callable[[], Any] | None]] = [
        (
            "Overview /",
            lambda: browser.get("/"),
            lambda: (memory_overview(), memory_insights(archive_threshold=None)),
        ),
        ("notes list, first page", lambda: browser.get("/notes/"), lambda: listed(NoteFilter())),
        (
            f"notes list, section = {section}",
            lambda: browser.get(f"/notes/?section={section.replace(' ', '+')}"),
            lambda: listed(NoteFilter(section=section)),
        ),
        (
            f"notes list, a later page (at {depth:,})",
            lambda: browser.get(f"/notes/?cursor={cursor}&pos={depth}"),
            lambda: listed(NoteFilter(), cursor),
        ),
        (
            "notes list, effective importance >= 0.9",
            lambda: browser.get("/notes/?min_effective=0.9"),
            lambda: listed(NoteFilter(min_effective=0.9)),
        ),
        ("Core page", lambda: browser.get("/core/"), core_view),
        (
            "note page",
            lambda: browser.get(f"/notes/{next(ids)}/"),
            lambda: note_detail(note_id=next(ids)),
        ),
        (
            "search page (HTML)",
            lambda: browser.get(f"/search/?q={next(words).replace(' ', '+')}"),
            lambda: notes_search(query=next(words), limit=20),
        ),
        (
            "search API (POST /api/notes/search, token)",
            lambda: browser.api_search(token, next(words)),
            lambda: notes_search(query=next(words), limit=20),
        ),
        ("review queue (no pairs waiting)", lambda: browser.get("/review/"), review_next),
        ("archive page (2,000 lines)", lambda: browser.get("/archive/"), archive_browse),
    ]
    warm_paths = dict(
        zip(
            [name for name, _, _ in pages],
            [
                "/",
                "/notes/",
                f"/notes/?section={section.replace(' ', '+')}",
                f"/notes/?cursor={cursor}&pos={depth}",
                "/notes/?min_effective=0.9",
                "/core/",
                f"/notes/{some_ids[0]}/",
                "/search/?q=warm+up",
                "/search/?q=warm+up",  # the API's worker: its model and index as the page's
                "/review/",
                "/archive/",
            ],
            strict=True,
        )
    )
    rows = []
    for name, over_http, in_process in pages:
        row = Row(name)
        browser.warm(warm_paths[name])
        row.figures["over HTTP"], row.figures["over HTTP p95"] = measured(over_http, repeat)
        if in_process is not None:
            row.figures["selectors in-process"], row.figures["selectors in-process p95"] = measured(
                in_process, repeat
            )
        report(row)
        rows.append(row)
    return rows


def archive_write(size: int) -> tuple[Path, float]:
    """``archive.jsonl`` of ``size`` lines, written anew (a new inode: each worker parses
    it whole on its next Overview); its path and megabytes."""
    from django.conf import settings

    from qqweb.lib.files import atomic_write_bytes

    path = Path(settings.MEMORY_DIR) / "archive.jsonl"
    data = "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in archive_lines(size))
    atomic_write_bytes(path, data.encode())
    return path, len(data) / 1e6


def archive_rows(browser: Browser, sizes: list[int], repeat: int) -> list[Row]:
    """The Overview over HTTP with the archive file at each size (see the module)."""
    from memory_app.notes.lib.archive.file import ArchiveFile

    rows = []
    for size in sizes:
        path, megabytes = archive_write(size)
        archive = ArchiveFile(path, path.parent / "archive.lock")
        row = Row(f"Overview, archive of {size:,} lines ({megabytes:.1f} MB)")
        first_ms = sample(lambda: browser.get("/"), 1)[0]
        row.figures["first request after the file is written"] = Figure(
            first_ms, load(), "1 sample, one worker"
        )
        browser.warm("/")  # every worker parses the new file once
        row.figures["warm"], row.figures["warm p95"] = measured(lambda: browser.get("/"), repeat)
        more = iter(archive_lines(repeat * 2, start=size))

        def appended_then_asked(archive: ArchiveFile = archive, more: Any = more) -> float:
            archive.append([next(more)])  # the agent archives a note: one line at the end
            return sample(lambda: browser.get("/"), 1)[0]

        after = sorted(appended_then_asked() for _ in range(repeat))
        row.figures["first request after an append"] = Figure(after[len(after) // 2], load())
        row.figures["first request after an append p95"] = Figure(
            after[max(0, int(len(after) * 0.95 + 0.5) - 1)], load()
        )
        browser.warm("/archive/")
        row.figures["archive page"], row.figures["archive page p95"] = measured(
            lambda: browser.get("/archive/"), repeat
        )
        report(row)
        rows.append(row)
    return rows


def report(row: Row) -> None:
    cells = "; ".join(f"{k}: {f.text()}" for k, f in row.figures.items())
    print(f"  {row.name}: {cells}", flush=True)


def markdown(title: str, rows: list[Row]) -> str:
    keys = [k for r in rows for k in r.figures if not k.endswith(" p95")]
    columns = list(dict.fromkeys(keys))
    lines = [f"**{title}**", "", "| row | " + " | ".join(columns) + " |"]
    lines.append("|" + "---|" * (len(columns) + 1))
    for r in rows:
        cells = []
        for key in columns:
            f = r.figures.get(key)
            text = f.text() if f else "-"
            p95 = r.figures.get(f"{key} p95")
            if f and p95 is not None and p95.ms is not None:
                text += f" (p95 {Figure(p95.ms, p95.load).text().split(' [')[0]})"
            cells.append(text)
        lines.append(f"| {r.name} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def save(name: str, results: dict[str, list[Row]]) -> None:
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    data = {
        title: [{"row": r.name, **{k: vars(f) for k, f in r.figures.items()}} for r in rows]
        for title, rows in results.items()
    }
    (out / f"{name}.json").write_text(json.dumps(data, indent=2))
    (out / f"{name}.md").write_text("\n".join(markdown(t, rows) for t, rows in results.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--server", choices=("rust", "py"), default="rust")
    parser.add_argument("--port-base", type=int, default=29640)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--archive-sizes", default="2000,50000")
    parser.add_argument("--embedder", default="minilm", choices=("minilm", "hashing"))
    parser.add_argument("--out", default="pages_http")
    parser.add_argument(
        "--first-minutes",
        type=float,
        default=120.0,
        help="seconds of Overview / filter requests right after the workers answer (0: none)",
    )
    args = parser.parse_args()
    found = dict(servers(args.server))
    if args.server not in found:
        raise SystemExit(f"no {args.server} server here: nothing measured")
    port = args.port_base
    while not port_free(port):
        port += 1
    uri, server = start_server(args.server, found[args.server], port)
    work = scratch_dir("qqweb-pages-http-")
    os.environ.update(
        {
            "MONGODB_URI": uri,
            "QQ_MONGO_DB": f"bench_pages_{args.n}",
            "NEO4J_URI": f"bolt://127.0.0.1:{port + 1}",  # nothing listens: the graph is down
        }
    )
    django_setup(work, args.embedder)
    gunicorn = None
    results: dict[str, list[Row]] = {}
    started = time.perf_counter()
    try:
        from bench.first_search_http import _token, launch
        from bench.server_scale import seed
        from memory_app.notes.stores import notes_store

        print(f"cores {os.cpu_count()}, load {load():.1f} at the start", flush=True)
        store = notes_store()
        seconds = seed(uri, args.n, 384, prepare=store.ensure_indexes)  # indexes first
        print(f"  seeded {args.n:,} notes in {seconds:.0f} s  [load {load():.1f}]", flush=True)
        store.vector_index.start()  # builds and saves the snapshot the workers open
        assert store.vector_index.wait_caught_up(timeout=1200), "no index in 20 min"
        user, token = curator(), _token()
        web_port = port + 2
        while not port_free(web_port):
            web_port += 1
        gunicorn = launch(web_port, workers=WORKERS, production=True)
        browser = Browser(f"http://127.0.0.1:{web_port}")
        ready_s = wait_workers_ready(browser, token)
        if args.first_minutes:
            browser.sign_in(user, PASSWORD)
            title = f"{args.n:,} notes, {args.server} server, the first minutes after a start"
            print(f"\n== {title}", flush=True)
            results[title] = first_minutes_rows(browser, args.first_minutes)
        # the requests may all have gone to one worker: each loads its model and index in
        # the background from its start; wait until every one is idle
        workers = Path(f"/proc/{gunicorn.pid}/task/{gunicorn.pid}/children").read_text().split()
        ready_s += sum(wait_idle(int(pid), most_s=600) for pid in workers)
        browser.sign_in(user, PASSWORD)
        browser.get("/notes/")  # each worker's first page waits for the store-health checks
        print(
            f"  gunicorn ({WORKERS} workers) ready (answering searches, each worker idle) "
            f"{ready_s:.0f} s after launch "
            f"[load {load():.1f}]",
            flush=True,
        )
        archive_write(2_000)  # the pages with an archive of a working agent's size
        title = f"{args.n:,} notes, {args.server} server, gunicorn {WORKERS} workers"
        print(f"\n== {title}", flush=True)
        results[title] = page_rows(browser, token, args.repeat)
        save(args.out, results)
        sizes = [int(s) for s in args.archive_sizes.split(",") if s]
        if sizes:
            title = f"Overview with archive lines, {args.n:,} notes, over HTTP"
            print(f"\n== {title}", flush=True)
            results[title] = archive_rows(browser, sizes, args.repeat)
            save(args.out, results)
    finally:
        if gunicorn is not None:
            gunicorn.terminate()
            gunicorn.wait(60)
        server.terminate()
        server.wait(60)
    print(
        f"\nresults in bench/results/{args.out}.md and .json "
        f"({(time.perf_counter() - started) / 60:.1f} min, load {load():.1f})"
    )


if __name__ == "__main__":
    main()
