"""The first search after a web process starts, the way a user meets it: gunicorn (one
worker, DEBUG off) is started on the bench's server and its saved snapshot, and a script
asks ``POST /api/notes/search`` every ``POLL_S`` from the moment the process is launched,
with the same embedder as the rest of the run (the real all-MiniLM-L6-v2 unless
``--embedder hashing``).

Reported: when the first search is answered (from the launch: Python and Django start,
the model and the index load in the background), the longest any one request waited
(a request that comes before the model or the index is ready is told "loading" with a
503 after ``VECTOR_READY_TIMEOUT_S``, it never hangs), and how many were told so.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from django.conf import settings

from bench.common import Figure, Row, load, port_free

ROOT = Path(__file__).resolve().parent.parent
POLL_S = 0.25
GIVE_UP_S = 300.0


def _token() -> str:
    """A viewer's API token in the bench's database (shared with the gunicorn process)."""
    from django.contrib.auth.models import Group, User

    from qqweb.services import api_token_create, roles_ensure

    roles_ensure()
    user, _ = User.objects.get_or_create(username="bench-script")
    user.groups.add(Group.objects.get(name="viewer"))
    _, raw = api_token_create(user=user, name="bench first search")
    return raw


def _ask(port: int, token: str) -> tuple[int, float, str]:
    """One search over HTTP: (status, seconds, what a 503 said); status 0 while nothing
    listens."""
    body = json.dumps({"query": "billing topic", "limit": 10}).encode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/notes/search",
        data=body,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        method="POST",
    )
    t = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310 - loopback
            response.read()
            return response.status, time.perf_counter() - t, ""
    except urllib.error.HTTPError as e:
        said = e.read().decode(errors="replace")
        return e.code, time.perf_counter() - t, re.sub(r"\d[\d,]*", "N", said)[:160]
    except OSError:
        return 0, time.perf_counter() - t, ""


def launch(
    port: int, *, threads: int = 1, workers: int = 1, production: bool = False
) -> subprocess.Popen[bytes]:
    """gunicorn (``workers`` workers of ``threads`` threads, DEBUG as the bench's settings)
    on ``port``, on the bench's server, database and vector folder, starting the model and
    the index in the background as a web process does. ``production``: with ``-c
    qqweb/gunicorn.conf.py``, as the image and docker-compose.yml start it."""
    env = {
        **os.environ,
        "MONGODB_URI": settings.MONGODB_URI,
        "QQ_MONGO_DB": settings.QQ_MONGO_DB,
        "QQ_VECTOR_DIR": str(settings.QQ_VECTOR_DIR),
        "SECRET_KEY": "bench-only-" + "x" * 40,
        "QQ_EMBEDDER_WARM_UP": "1",  # as a web process starts: model and index in the
        "QQ_VECTOR_WARM_UP": "1",  # background (the bench's own process turns them off)
    }
    cmd = [str(Path(sys.executable).parent / "gunicorn")]
    if production:
        cmd += ["-c", "qqweb/gunicorn.conf.py"]
    cmd += [
        "qqweb.wsgi:application",
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        str(workers),
        "--timeout",
        "120",
        "--threads",
        str(threads),
    ]
    return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)


def first_search_over_http(port: int) -> Row:
    """Launch gunicorn on ``port`` and ask until a search is answered (see the module)."""
    while not port_free(port):
        port += 1
    token = _token()
    launched = time.perf_counter()
    proc = launch(port)
    answered = None
    longest = 0.0
    told = 0
    heard: dict[str, float] = {}  # what the process said first, and when (from the launch)
    try:
        while time.perf_counter() - launched < GIVE_UP_S:
            status, seconds, said = _ask(port, token)
            if status:
                longest = max(longest, seconds)
                heard.setdefault(f"{status} {said}".strip(), time.perf_counter() - launched)
            if status == 200:
                answered = time.perf_counter() - launched
                break
            if status == 503:
                told += 1
            elif status not in (0, 503):
                raise RuntimeError(f"the search answered HTTP {status}")
            time.sleep(POLL_S)
    finally:
        proc.terminate()
        proc.wait(60)
    for said, at in heard.items():
        print(f"    after {at:.1f} s: {said}", flush=True)
    row = Row("first search after gunicorn starts (model + index, over HTTP)")
    note = "" if answered is not None else f"not answered in {GIVE_UP_S:.0f} s"
    row.figures["current"] = Figure(answered * 1000 if answered else None, load(), note)
    row.figures["longest wait of one request"] = Figure(longest * 1000, load())
    row.figures["told loading (503)"] = Figure(None, load(), f"{told} times")
    return row
