"""Shared pieces of ``bench/scale.py``: figures with the load average beside them, timing,
agent-shaped notes, the servers, and the read-model answers the pages do not use yet.

Three approaches per row:

- **current**: the code the pages and API call today (the selectors in
  ``memory_app/notes/selectors``, the store's ``list_notes`` and ``count_notes``, the vector
  index the app builds), called in-process (no HTTP, no template rendering);
- **read model**: the same question answered from the read model's numpy columns
  (``memory/read_model.py``, kept by the vector index's follower) and the page's
  documents fetched by id. The list rows call what the Notes page calls (the selectors
  ``notes_list`` + ``notes_count``, ``memory/read_list.py``; in-process:
  ``notes_list_scale.py``); the "current" column of those rows is then the MongoDB query
  the list used before (``list_notes`` + ``count_notes``), now the reference and the
  small-collection fallback;
- **naive**: fetch every note (the whole documents, as the seeds do), then pure Python:
  ``effective_importance`` per note, sorting, and cosine over lists of floats. The fetch
  is timed once per server and size and added to each row's Python work.
"""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from memory_app.notes.lib.replica.aggregates import read_pictures, section_counts

ROOT = Path(__file__).resolve().parent.parent


def load() -> float:
    return round(os.getloadavg()[0], 2)


@dataclass
class Figure:
    """One measured time (ms) with the 1-minute load average when it was taken."""

    ms: float | None
    load: float
    note: str = ""

    def text(self) -> str:
        if self.ms is None:
            return f"- ({self.note})" if self.note else "-"
        value = f"{self.ms / 1000:.1f} s" if self.ms >= 10_000 else f"{self.ms:.1f} ms"
        extra = f", {self.note}" if self.note else ""
        return f"{value} [load {self.load:.1f}{extra}]"


@dataclass
class Row:
    name: str
    figures: dict[str, Figure] = field(default_factory=dict)

    def ratio(self, slow: str, fast: str) -> str:
        a, b = self.figures.get(slow), self.figures.get(fast)
        if not a or not b or a.ms is None or b.ms is None or b.ms <= 0:
            return "-"
        return f"{a.ms / b.ms:,.1f}x"


def timed_ms(fn: Callable[[], Any]) -> tuple[float, Any]:
    t = time.perf_counter()
    out = fn()
    return (time.perf_counter() - t) * 1000, out


def sample(fn: Callable[[], Any], repeat: int, pause: float = 0.0) -> tuple[float, float]:
    """(p50, p95) in ms of ``repeat`` calls, ``pause`` seconds apart."""
    times = []
    for i in range(repeat):
        if pause and i:
            time.sleep(pause)
        times.append(timed_ms(fn)[0])
    times.sort()
    return statistics.median(times), times[max(0, int(len(times) * 0.95 + 0.5) - 1)]


# --- notes ------------------------------------------------------------------------------------

SECTIONS = ["Key Topics", "Important Facts", "Action Items", "User Preferences"]
NOW = datetime(2026, 11, 22)
WORDS = [
    "postgres",
    "billing",
    "lumen",
    "deploy",
    "migration",
    "tea",
    "coffee",
    "review",
    "budget",
    "travel",
]


def clustered(n: int, dim: int, seed: int) -> np.ndarray:
    from qqweb.lib.vectors import normalise

    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(max(1, n // 50), dim)).astype(np.float32)
    out = np.empty((n, dim), dtype=np.float32)
    for start in range(0, n, 50_000):
        stop = min(n, start + 50_000)
        noise = rng.standard_normal(size=(stop - start, dim), dtype=np.float32) * 0.6
        out[start:stop] = centres[rng.integers(0, len(centres), stop - start)] + noise
    return normalise(out)


def agent_notes(start: int, stop: int, vectors: np.ndarray | None) -> list[dict[str, Any]]:
    """Notes as the agent writes them, deterministic by index."""
    rng = np.random.default_rng(start)
    out = []
    for i in range(start, stop):
        created = NOW - timedelta(minutes=int(rng.integers(0, 400 * 1440)))
        file_note = i % 3 == 0
        out.append(
            {
                "note_id": f"note_{i:012x}",
                "content": f"note {i}: {WORDS[i % 10]} {WORDS[(i * 7) % 10]} topic {i % 997}",
                "embedding": [] if vectors is None else vectors[i - start].tolist(),
                "section": SECTIONS[i % 4],
                "metadata": {},
                "importance": round(float(rng.random()), 3),
                "decay_rate": [0.01, 0.005, 0.02][i % 3],
                "access_count": int(rng.integers(0, 20)),
                "created_at": created,
                "updated_at": created + timedelta(days=int(rng.integers(0, 30))),
                "last_accessed": None if i % 5 == 0 else created + timedelta(days=3),
                "source": {
                    "source_type": "file" if file_note else "conversation",
                    "file_path": f"/repo/docs/f{i % 200}.md" if file_note else "",
                    "source_id": f"session:{i % 50}",
                },
            }
        )
    return out


# --- servers ----------------------------------------------------------------------------------


def django_in(work: Path, mongodb_uri: str, **settings: str) -> None:
    """Set up Django for a bench in ``work``: its own SQLite database, memory directory,
    vector and scan folders, an in-memory Celery broker (jobs run in the process), no
    warm-up threads, no facts store, and a store timeout of 30 s (the in-process daemon
    answers no heartbeat while it streams vectors: at the default 2 s pymongo takes it for
    down). ``settings`` add or override environment settings; then migrate."""
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "qqweb.settings",
            "DEBUG": "0",
            "MONGODB_URI": mongodb_uri,
            "DATABASE_URL": f"sqlite:///{work / 'bench.sqlite3'}",
            "MEMORY_DIR": str(work / "memory"),
            "QQ_VECTOR_DIR": str(work / "vectors"),
            "QQ_DEDUP_SCAN_DIR": str(work / "scans"),
            "CELERY_BROKER_URL": "memory://",
            "CELERY_RESULT_BACKEND": "cache+memory://",
            "QQ_EMBEDDER_WARM_UP": "0",
            "QQ_VECTOR_WARM_UP": "0",
            "QQ_FACTS_MONGO_URI": "",
            "QQ_STORE_TIMEOUT_MS": os.environ.get("QQ_STORE_TIMEOUT_MS", "30000"),
            **settings,
        }
    )
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def port_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def scratch_dir(prefix: str) -> Path:
    """A fresh directory under /tmp, removed when the bench exits (a 1M-note run leaves
    gigabytes: a disk filled by earlier runs stopped a seeding half-way)."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


def _stop_and_remove(proc: subprocess.Popen[bytes], data: Path) -> None:
    if proc.poll() is None:
        proc.kill()
        proc.wait(30)
    shutil.rmtree(data, ignore_errors=True)


def start_server(
    kind: str, binary: str, port: int, data: str | None = None
) -> tuple[str, subprocess.Popen[bytes]]:
    """A server on ``port`` on ``data``, by default a fresh directory under /tmp that is
    removed, the server stopped first, when the bench exits."""
    scratch = data is None
    data = data or tempfile.mkdtemp(prefix=f"qqweb-bench-{kind}-")
    if kind == "rust":
        cmd = [binary, "--port", str(port), "--storage-path", data]
    else:
        cmd = [binary, "--host", "127.0.0.1", "--port", str(port), "--storage-path", data]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if scratch:
        atexit.register(_stop_and_remove, proc, Path(data))
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return f"mongodb://127.0.0.1:{port}/?directConnection=true", proc
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise SystemExit(f"{binary} did not listen on port {port}")


def cpu_seconds(pid: int) -> float:
    """CPU time a process has used so far (0 when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_idle(pid: int, most_s: float = 300.0) -> float:
    """Wait until the server ``pid`` uses under 10% of a core over a second (a query the
    bench abandoned runs on there until it ends), at most ``most_s``; the seconds waited.
    The next figure is then not measured against the server's leftover work."""
    start = time.monotonic()
    before = cpu_seconds(pid)
    while time.monotonic() - start < most_s:
        time.sleep(1.0)
        now = cpu_seconds(pid)
        if now - before < 0.1:
            break
        before = now
    return time.monotonic() - start


def rss_mb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) // 1024
    except OSError:
        pass
    return 0


# --- the read model's answers ------------------------------------


def row_ids(model: Any) -> np.ndarray:
    """Note id of each row (the read model keeps id -> row only)."""
    ids = np.empty(model.size, dtype=object)
    for note_id, row in model.rows.items():
        ids[row] = note_id
    return ids


def model_page(
    model: Any, column: str, mask: np.ndarray, depth: int, limit: int = 50
) -> tuple[np.ndarray, int]:
    """Rows of one page, by ``column`` descending, and the exact count of ``mask``."""
    rows = np.flatnonzero(mask)
    keys = np.nan_to_num(model.columns[column][: model.size][rows].astype(np.float64), nan=-1)
    want = min(depth + limit, len(rows))
    if want == 0:
        return rows[:0], 0
    part = np.argpartition(-keys, want - 1)[:want]
    order = part[np.argsort(-keys[part], kind="stable")]
    return rows[order[depth : depth + limit]], len(rows)


def model_overview(model: Any, now: datetime, threshold: float) -> dict[str, Any]:
    """What the Overview's selectors (``memory_overview`` and ``memory_insights``) compute
    from the read model: ``read_aggregates.section_counts`` and ``read_pictures`` (the
    same functions, without the Django wiring and chart objects around them)."""
    return {
        "by_section": section_counts(model),
        "pictures": read_pictures(model, now=now, threshold=threshold),
    }
