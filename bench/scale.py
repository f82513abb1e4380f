"""Issue 14's table in one run: each row at each size, on each server found, against the
current approach and the naive one, as ratios, with the load average beside each figure.

    .venv/bin/python bench/scale.py                         # 100k, every server found
    .venv/bin/python bench/scale.py --sizes 100000,1000000 --server-sizes 100000
    .venv/bin/python bench/scale.py --dedup-full 10000,100000 --only inprocess

Servers: SecantusDB's Rust server (``secantusd-rs`` on PATH or ``var/cargo/bin``, built by
``make var/cargo/bin/secantusd-rs``; skipped, and said so, when it is not installed) and
the Python daemon ``make dev`` starts (``secantusd-py``), each started fresh on a port of
``--port-base`` with its own data directory under /tmp and stopped at the end. The rows
that need a server run at ``--server-sizes``; search alone, the read model's pages and the
dedup scan run in-process at ``--sizes`` (1M fits there; seeding a server with 1M notes
does not fit in a run on this machine). What "current", "read model" and "naive" mean:
``bench/common.py``. Results: bench/results/scale.json and scale.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import qqweb  # noqa: F401  (first: one BLAS thread per process, as in every qqweb process)
from bench.common import Figure, Row, load, port_free, scratch_dir, start_server

COLUMNS = ("current", "read model", "naive")


def servers(which: str) -> list[tuple[str, str]]:
    found = []
    rust = shutil.which("secantusd-rs") or str(ROOT / "var/cargo/bin/secantusd-rs")
    if "rust" in which:
        if Path(rust).exists():
            found.append(("rust", rust))
        else:
            print("SecantusDB's Rust server is not installed here: its rows are skipped")
    if "py" in which:
        found.append(("py", str(ROOT / ".venv/bin/secantusd-py")))
    return found


def django_setup(work: Path, embedder: str) -> None:
    """Django for the bench: its own SQLite database, memory dir and vector dir under
    ``work``; ``embedder`` "minilm" (the real all-MiniLM-L6-v2, what users run) or
    "hashing" (no model: encode and model load left out of the search rows)."""
    backend = "sentence-transformers" if embedder == "minilm" else "hashing"
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "qqweb.settings",
            "DEBUG": "0",
            "DATABASE_URL": f"sqlite:///{work / 'bench.sqlite3'}",
            "MEMORY_DIR": str(work / "memory"),
            "QQ_VECTOR_DIR": str(work / "vectors"),
            "QQ_EMBEDDING_BACKEND": backend,
            "QQ_EMBEDDING_DIMENSION": "384",
            "QQ_EMBEDDER_WARM_UP": "0",
            "QQ_FACTS_MONGO_URI": "",
        }
    )
    (work / "memory").mkdir()
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def markdown(title: str, rows: list[Row]) -> str:
    extra = sorted({k for r in rows for k in r.figures} - set(COLUMNS))
    extra = [k for k in extra if not k.endswith("p95")]
    head = ["row", "current (p95)", "read model (p95)", *extra, "naive"]
    head += ["naive / current", "naive / read model", "current / read model"]
    lines = [f"**{title}**", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:

        def cell(key: str, f: dict[str, Figure] = r.figures) -> str:
            if key not in f:
                return "-"
            text = f[key].text()
            p95 = f.get(f"{key} p95")
            if p95 is not None and p95.ms is not None and "1 sample" not in p95.note:
                text += f" (p95 {Figure(p95.ms, p95.load).text().split(' [')[0]})"
            return text

        cells = [r.name, cell("current"), cell("read model"), *(cell(k) for k in extra)]
        cells += [cell("naive"), r.ratio("naive", "current"), r.ratio("naive", "read model")]
        cells += [r.ratio("current", "read model")]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def render(path: Path) -> str:
    """scale.md again from scale.json (after a change to the table's layout)."""
    data = json.loads(path.read_text())
    parts = []
    for title, rows in data.items():
        parsed = [Row(r["row"], {k: Figure(**v) for k, v in r.items() if k != "row"}) for r in rows]
        parts.append(markdown(title, parsed))
    return "\n".join(parts)


DOCS_PAGE = Path("docs") / "scale-and-benchmarks.md"
DOCS_BEGIN = "<!-- bench/scale.py --docs: begin (generated, do not edit) -->"
DOCS_END = "<!-- bench/scale.py --docs: end -->"


def write_docs(names: list[str], begin: str = DOCS_BEGIN, end: str = DOCS_END) -> None:
    """Put the rendered tables of ``bench/results/<name>.md`` between the two markers of
    docs/scale-and-benchmarks.md (the benchmark section's generated part): the page shows
    one run's figures, never a hand copy of them."""
    page = ROOT / DOCS_PAGE
    text = page.read_text()
    if begin not in text or end not in text:
        raise SystemExit(f"{DOCS_PAGE} has no {begin!r} ... {end!r} markers")
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    tables = "\n".join(
        (ROOT / "bench" / "results" / f"{name}.md").read_text().strip() + "\n" for name in names
    )
    page.write_text(f"{head}{begin}\n\n{tables}\n{end}{tail}")
    print(f"{DOCS_PAGE}: the tables of {', '.join(names)} written between the markers")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="100000", help="in-process rows, e.g. 100000,1000000")
    parser.add_argument("--server-sizes", default="100000", help="rows that need a server")
    parser.add_argument("--servers", default="rust,py")
    parser.add_argument(
        "--before-on",
        default="rust,py",
        help="servers where the pages' MongoDB queries from before the read model run too",
    )
    parser.add_argument("--only", default="", help="'server' or 'inprocess'")
    parser.add_argument(
        "--rows", default="", help="server rows: pages,pace,first,search (default: all)"
    )
    parser.add_argument("--port-base", type=int, default=18400)
    parser.add_argument(
        "--embedder", default="minilm", choices=("minilm", "hashing"), help="for the search rows"
    )
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--depth", type=int, default=10_000)
    parser.add_argument("--budget-s", type=float, default=120.0, help="give up on a call after")
    parser.add_argument("--walk-budget-s", type=float, default=60.0, help="paging to --depth")
    parser.add_argument("--naive-cap", type=int, default=100_000)
    parser.add_argument("--dedup-full", default="10000", help="full-scan sizes ('' for none)")
    parser.add_argument("--dedup-incremental", default="100000")
    parser.add_argument(
        "--dedup-workers", default="100000", help="1 vs 2 Celery workers at these sizes"
    )
    parser.add_argument("--changed", type=int, default=1000)
    parser.add_argument("--out", default="scale", help="results file name, without suffix")
    parser.add_argument("--render", action="store_true", help="the .md again from the .json")
    parser.add_argument(
        "--docs",
        default="",
        help="results names (e.g. scale,dedup_scale) whose tables go into " + str(DOCS_PAGE),
    )
    args = parser.parse_args()
    if args.docs:
        write_docs([name for name in args.docs.split(",") if name])
        return
    if args.render:
        md = render(ROOT / "bench" / "results" / f"{args.out}.json")
        (ROOT / "bench" / "results" / f"{args.out}.md").write_text(md)
        print(md)
        return
    sizes = [int(s) for s in args.sizes.split(",") if s]
    server_sizes = [int(s) for s in args.server_sizes.split(",") if s]
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    results: dict[str, list[Row]] = {}

    def save() -> None:
        data = {
            title: [{"row": r.name, **{k: vars(f) for k, f in r.figures.items()}} for r in rows]
            for title, rows in results.items()
        }
        (out / f"{args.out}.json").write_text(json.dumps(data, indent=2))
        (out / f"{args.out}.md").write_text(
            "\n".join(markdown(title, rows) for title, rows in results.items())
        )

    print(f"cores {os.cpu_count()}, load {load():.1f} at the start")
    if args.only in ("", "server"):
        work = scratch_dir("qqweb-bench-scale-")
        django_setup(work, args.embedder)
        from bench.server_scale import measure

        port = args.port_base
        for kind, binary in servers(args.servers):
            while not port_free(port):
                port += 1
            uri, proc = start_server(kind, binary, port)
            try:
                for n in server_sizes:
                    title = f"{n:,} notes, {kind} server"
                    print(f"\n== {title} ({binary}) [load {load():.1f}]", flush=True)
                    try:
                        results[title] = measure(uri, n, args, proc.pid, kind)
                    except Exception as e:  # the server died: say so, go on with the rest
                        alive = "still running" if proc.poll() is None else "exited"
                        print(f"  FAILED: {type(e).__name__}: {str(e)[:200]} (server {alive})")
                        results[title] = [Row(f"run failed: {type(e).__name__} (server {alive})")]
                    save()
            finally:
                proc.terminate()
                proc.wait(60)
            port += 1
    if args.only in ("", "inprocess"):
        from bench.dedup_scale import dedup_rows
        from bench.notes_list_scale import list_rows
        from bench.search_overview_scale import read_model_rows, search_rows

        for n in sizes:
            title = f"{n:,} notes, in-process"
            print(f"\n== {title} [load {load():.1f}]", flush=True)
            results[title] = search_rows(n, args.dim, args.naive_cap)
            save()
            results[title] += read_model_rows(n)
            save()
            results[title] += list_rows(n)
            save()
        full = [int(s) for s in args.dedup_full.split(",") if s]
        incremental = [int(s) for s in args.dedup_incremental.split(",") if s]
        workers = [int(s) for s in args.dedup_workers.split(",") if s]
        if full or incremental or workers:
            print(f"\n== dedup [load {load():.1f}]", flush=True)
            results["dedup"] = dedup_rows(full, incremental, args.changed, workers)
            save()
    print(f"\nresults in {out / args.out}.md and .json")


if __name__ == "__main__":
    main()
