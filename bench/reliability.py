"""Every benchmark of issue 28 in one unattended run, one after the other, and one table
of their results, each figure beside the load average it was measured at.

    .venv/bin/python bench/reliability.py                # every step (make bench-reliability)
    .venv/bin/python bench/reliability.py --only pages_http,dedup_full_snapshot  # the others kept
    .venv/bin/python bench/reliability.py --collect      # the table again from results/
    .venv/bin/python bench/reliability.py --docs         # the table into the docs page

Each step is ``python bench/<script>.py`` with its arguments, as a subprocess with a
time limit (``STEPS`` below is the one list to edit); a script that is not there is said
so and skipped, a step that fails or runs out of time is said so and the run goes on.
Each step's output goes to the terminal and to bench/results/reliability.log. The table,
bench/results/reliability.md (and .json: what each step did, how long, its load before
and after), is made of the bench/results/*.json each step wrote during its run. ``--docs``
writes reliability.md between the markers of docs/scale-and-benchmarks.md (as
``bench/scale.py --docs`` does for its tables).

The pages over HTTP and the two full dedup scans at 100k take 10 minutes on 2 cores
(6.1 + 2.0 + 1.8 at load 6-9; most of it seeding the servers); the other steps as their
scripts say.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import Figure, load
from bench.scale import write_docs

RESULTS = ROOT / "bench" / "results"
DOCS_BEGIN = "<!-- bench/reliability.py --docs: begin (generated, do not edit) -->"
DOCS_END = "<!-- bench/reliability.py --docs: end -->"


@dataclass(frozen=True)
class Step:
    name: str  # how --only names it
    script: str  # bench/<script>.py
    args: str = ""  # its arguments, split on spaces
    what: str = ""
    limit_s: float = 3600.0


# The one list to edit: every issue-28 benchmark, in the order they run.
STEPS: list[Step] = [
    Step(
        "pages_http",
        "pages_http",
        what="the pages over HTTP (gunicorn, 3 workers) at 100k notes on the Rust server, and "
        "the Overview with 2,000 and 50,000 archive lines",
    ),
    Step(
        "dedup_full_snapshot",
        "dedup_job",
        "--full --server rust --n 100000 --skip-full-read --port 29650 --out dedup_full_snapshot",
        what="the full dedup scan at 100k, vectors from the vector index's snapshot",
    ),
    Step(
        "dedup_full_mongodb",
        "dedup_job",
        "--full --no-snapshot --server rust --n 100000 --port 29650 --out dedup_full_mongodb",
        what="the full dedup scan at 100k, vectors from MongoDB",
    ),
    Step("cold_start", "cold_start", what="cold start on the daemon at 100k"),
    Step(
        "search_libs",
        "search_libs",
        "--sizes 100000",
        what="search alone against hnswlib and usearch: MiniLM 22k and clustered 100k",
    ),
    Step(
        "search_libs_1m",
        "search_libs",
        "--sizes 1000000 --no-minilm --only app --out search_libs_1m",
        what="search alone at 1M, the app's index",
    ),
    Step(
        "search_libs_1m_hnswlib",
        "search_libs",
        "--sizes 1000000 --no-minilm --only hnswlib --build-threads 2 --out search_libs_1m_hnswlib",
        what="search alone at 1M, hnswlib beside it (built on 2 threads, searched on one; "
        "usearch's build would take about 1.5 h at 1M here)",
    ),
    Step(
        "restart",
        "restart",
        what="the first search after a restart at 100k and 1M, three workers",
    ),
]


def run_step(step: Step, log: Any) -> dict[str, Any]:
    """Run one step; what happened (status, seconds, load before and after, results)."""
    script = ROOT / "bench" / f"{step.script}.py"
    done: dict[str, Any] = {"step": step.name, "what": step.what, "command": ""}
    if not script.exists():
        message = f"bench/{step.script}.py is not there: step {step.name} skipped"
        print(f"\n== {message}", flush=True)
        log.write(f"\n== {message}\n")
        return {**done, "status": "missing", "seconds": 0, "results": []}
    command = [sys.executable, str(script.relative_to(ROOT)), *step.args.split()]
    done["command"] = " ".join(["python", *command[1:]])
    head = f"\n== {step.name}: {done['command']}  [load {load():.1f}]"
    print(head, flush=True)
    log.write(head + "\n")
    started_wall = time.time()
    before, t = load(), time.perf_counter()
    proc = subprocess.Popen(
        command,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own process group: a timeout stops its servers too
    )
    stopped = threading.Event()

    def stop() -> None:  # the time limit: the step's process group, servers included
        stopped.set()
        os.killpg(proc.pid, signal.SIGTERM)

    timer = threading.Timer(step.limit_s, stop)
    timer.start()
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            sys.stdout.write(line)
            log.write(line)
        code = proc.wait()
    finally:
        timer.cancel()
    status = "ok" if code == 0 else f"failed (exit {code})"
    if stopped.is_set():
        status = f"stopped after {step.limit_s:.0f} s"
    log.flush()
    written = sorted(
        p.stem
        for p in RESULTS.glob("*.json")
        if p.stat().st_mtime >= started_wall and p.stem != "reliability"
    )
    seconds = time.perf_counter() - t
    print(f"== {step.name}: {status} in {seconds / 60:.1f} min, wrote {written}", flush=True)
    return {
        **done,
        "status": status,
        "seconds": round(seconds, 1),
        "load_before": before,
        "load_after": load(),
        "results": written,
    }


def _figure(value: Any) -> str | None:
    """A Figure's text when ``value`` is one as bench scripts save it (ms, load, note)."""
    if isinstance(value, dict) and {"ms", "load"} <= set(value):
        return Figure(value["ms"], value["load"], value.get("note", "")).text()
    return None


def render_result(name: str, data: Any) -> str:
    """One results file as markdown: the tables of issue 14's layout (title -> rows of
    figures) as tables, anything else as its values with the load they carry."""
    lines = [f"*bench/results/{name}.json*", ""]
    tables = isinstance(data, dict) and all(
        isinstance(rows, list) and all(isinstance(r, dict) and "row" in r for r in rows)
        for rows in data.values()
    )
    if tables and data:
        for title, rows in data.items():
            keys = list(dict.fromkeys(k for r in rows for k in r if k != "row"))
            columns = [k for k in keys if not k.endswith(" p95")]
            lines += [f"**{title}**", "", "| row | " + " | ".join(columns) + " |"]
            lines.append("|" + "---|" * (len(columns) + 1))
            for r in rows:
                cells = []
                for key in columns:
                    text = _figure(r.get(key)) or str(r.get(key, "-"))
                    p95 = r.get(f"{key} p95")
                    if isinstance(p95, dict) and p95.get("ms") is not None:
                        text += f" (p95 {Figure(p95['ms'], p95['load']).text().split(' [')[0]})"
                    cells.append(text)
                lines.append(f"| {r['row']} | " + " | ".join(cells) + " |")
            lines.append("")
        return "\n".join(lines)
    flat: list[tuple[str, Any]] = []

    def walk(prefix: str, value: Any) -> None:
        if _figure(value) is not None:
            flat.append((prefix, _figure(value)))
        elif isinstance(value, dict):
            for k, v in value.items():
                walk(f"{prefix}.{k}" if prefix else str(k), v)
        elif isinstance(value, list) and len(value) > 10:
            flat.append((prefix, f"({len(value)} samples, in the .json)"))
        else:
            flat.append((prefix, value))

    walk("", data)
    lines += ["| value | |", "|---|---|"]
    lines += [f"| {k} | {json.dumps(v) if not isinstance(v, str) else v} |" for k, v in flat]
    return "\n".join(lines) + "\n"


def dedup_row(data: dict[str, Any]) -> str:
    """``dedup_job.py --out``'s result as one line with its load."""
    stats = data.get("stats", {})
    return (
        f"full dedup scan, {stats.get('notes', data['n']):,} notes on the {data['server']} "
        f"server, vectors from "
        f"{stats.get('vectors_read_from', '?')}: **{data['seconds']:.1f} s** "
        f"[load {data['load_before']:.1f} -> {data['load_after']:.1f}], "
        f"{stats.get('pairs_found', '?')} pairs; the index's catch-up before it "
        f"{data.get('index_catch_up_s', 0):.1f} s, seeding {data.get('seed_s', 0):.0f} s apart"
        + (
            f"; reading every vector from MongoDB alone, after it: {data['read_vectors_s']:.1f} s"
            if data.get("read_vectors_s")
            else ""
        )
    )


def collect(steps: list[dict[str, Any]]) -> str:
    """reliability.md: what each step did, then each results file it wrote."""
    lines = [
        "**Issue 28's benchmarks, one run** (`make bench-reliability`; every figure beside "
        "the 1-minute load average when it was taken)",
        "",
        "| step | what | status | time | load before -> after |",
        "|---|---|---|---|---|",
    ]
    for s in steps:
        lines.append(
            f"| {s['step']} | {s['what']} | {s['status']} | {s['seconds'] / 60:.1f} min | "
            f"{s.get('load_before', '-')} -> {s.get('load_after', '-')} |"
        )
    total = sum(s["seconds"] for s in steps)
    lines += ["", f"Whole run: {total / 60:.1f} min.", ""]
    for s in steps:
        for name in s.get("results", []):
            data = json.loads((RESULTS / f"{name}.json").read_text())
            own = RESULTS / f"{name}.md"  # the script's own table, where it writes one
            if name.startswith("dedup_full_"):
                lines += [f"- {dedup_row(data)}", ""]
            elif own.exists() and name != "pages_http":
                lines += [f"*bench/results/{name}.md*", "", own.read_text().strip(), ""]
            else:
                lines.append(render_result(name, data))
    return "\n".join(lines).rstrip() + "\n"


def kept(steps: list[dict[str, Any]], record: Path, wanted: set[str]) -> list[dict[str, Any]]:
    """With ``--only``, the steps just run in place of the same steps of the last run's
    record, the others kept (in STEPS' order): re-running one step keeps the table whole."""
    if not wanted or not record.exists():
        return steps
    by_name = {s["step"]: s for s in json.loads(record.read_text())}
    by_name.update({s["step"]: s for s in steps})
    order = [s.name for s in STEPS]
    return sorted(
        by_name.values(),
        key=lambda s: order.index(s["step"]) if s["step"] in order else len(order),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default="", help="step names, comma-separated")
    parser.add_argument("--collect", action="store_true", help="the table from the last run")
    parser.add_argument("--docs", action="store_true", help="reliability.md into the docs page")
    args = parser.parse_args()
    if args.docs:
        write_docs(["reliability"], DOCS_BEGIN, DOCS_END)
        return
    RESULTS.mkdir(parents=True, exist_ok=True)
    record = RESULTS / "reliability.json"
    if args.collect:
        steps = json.loads(record.read_text())
    else:
        wanted = {n for n in args.only.split(",") if n}
        unknown = wanted - {s.name for s in STEPS}
        if unknown:
            raise SystemExit(f"no such step: {', '.join(sorted(unknown))}")
        steps = []
        with open(RESULTS / "reliability.log", "a" if wanted else "w") as log:
            log.write(f"cores {os.cpu_count()}, load {load():.1f} at the start\n")
            for step in STEPS:
                if wanted and step.name not in wanted:
                    continue
                steps.append(run_step(step, log))
                record.write_text(json.dumps(kept(steps, record, wanted), indent=2) + "\n")
        steps = kept(steps, record, wanted)
    (RESULTS / "reliability.md").write_text(collect(steps))
    total = sum(s["seconds"] for s in steps)
    print(f"\nbench/results/reliability.md written: {len(steps)} steps, {total / 60:.1f} min")


if __name__ == "__main__":
    main()
