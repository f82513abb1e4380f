"""`make dev` end to end, as a person runs it in a terminal: on free ports and its own var
folder, in a pseudo-terminal (Maven and Django colour their output only on one), stopped
with Ctrl-C typed into that terminal. Real SecantusDB, Neo4j, Django, Celery; Django's
tables on SQLite, or on PostgreSQL in the PostgreSQL run (``dev_database_url``)."""

from __future__ import annotations

import fcntl
import http.cookiejar
import os
import pty
import re
import signal
import subprocess
import termios
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.services import free_port

ROOT = Path(__file__).resolve().parents[2]
REQUEST_LOG = re.compile(r"^\[\d\d/\w{3}/\d{4} ")  # runserver's "[25/Nov/2026 21:25:52] ..."


@dataclass
class Terminal:
    """The output of a process on a pseudo-terminal, read as it comes."""

    master: int
    text: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def read_all(self) -> None:
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:  # EIO: every process holding the terminal has gone
                return
            if not chunk:
                return
            with self.lock:
                self.text += chunk.decode(errors="replace").replace("\r\n", "\n")

    def wait_for(self, pattern: str, timeout: float) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                found = re.search(pattern, self.text, re.M)
            if found:
                return found
            time.sleep(0.2)
        raise AssertionError(f"no {pattern!r} within {timeout} s; output:\n{self.text}")

    def type(self, keys: bytes) -> None:
        os.write(self.master, keys)


@dataclass
class DevRun:
    process: subprocess.Popen[bytes]
    terminal: Terminal
    web: str
    var: Path


def _controlling_terminal() -> None:  # in the child, after setsid: the pty becomes its tty
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    # As from a user's shell: a signal this test process ignores (an earlier test may have
    # set one) would be ignored by make and dev.sh too, and a shell cannot trap a signal
    # ignored on entry: Ctrl-C would reach nothing.
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, signal.SIG_DFL)


@pytest.fixture
def make_dev(tmp_path: Path, dev_database_url: str | None) -> Iterator[DevRun]:
    ports = {"QQ_DEV_MONGO_PORT": free_port(), "QQ_DEV_NEO4J_PORT": free_port()}
    ports["QQ_DEV_PORT"] = free_port()
    var = tmp_path / "var"
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("QQ_", "MONGODB_", "NEO4J_", "CELERY_", "DJANGO_", "MAKE"))
        and k not in {"DATABASE_URL", "MEMORY_DIR", "DEBUG", "MFLAGS"}
    }
    env.update({k: str(v) for k, v in ports.items()}, QQ_VAR_DIR=str(var), TERM="xterm-256color")
    if dev_database_url is not None:  # the PostgreSQL run: make dev on PostgreSQL
        env["DATABASE_URL"] = dev_database_url
    master, slave = pty.openpty()
    process = subprocess.Popen(
        ["make", "--no-print-directory", "dev"],
        cwd=ROOT,
        env=env,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        start_new_session=True,
        preexec_fn=_controlling_terminal,
    )
    os.close(slave)
    terminal = Terminal(master)
    reader = threading.Thread(target=terminal.read_all, daemon=True)
    reader.start()
    try:
        yield DevRun(process, terminal, f"http://127.0.0.1:{ports['QQ_DEV_PORT']}", var)
    finally:
        if process.poll() is None:  # the test failed midway: dev.sh stops what it started
            process.terminate()
            process.wait(timeout=150)
        reader.join(timeout=5)
        os.close(master)


def _signed_in(web: str, var: Path) -> urllib.request.OpenerDirector:
    credentials = dict(
        line.split(": ", 1) for line in (var / "admin-credentials.txt").read_text().splitlines()
    )
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    with opener.open(f"{web}/accounts/login/", timeout=60) as response:
        assert response.status == 200
    token = next(c.value for c in jar if c.name == "csrftoken")
    form = urllib.parse.urlencode(
        {
            "csrfmiddlewaretoken": token,
            "username": credentials["username"],
            "password": credentials["password"],
        }
    ).encode()
    request = urllib.request.Request(  # noqa: S310 - http://127.0.0.1 only
        f"{web}/accounts/login/", data=form, headers={"Referer": f"{web}/accounts/login/"}
    )
    with opener.open(request, timeout=60) as response:
        assert response.url == f"{web}/", "the sign-in did not land on the Overview"
    return opener


def _overview(opener: urllib.request.OpenerDirector, web: str) -> str:
    with opener.open(f"{web}/", timeout=120) as response:
        assert response.status == 200
        return str(response.read().decode())


@pytest.mark.timeout(900)
def test_make_dev_serves_the_demo_then_the_graph_and_stops_on_ctrl_c(make_dev: DevRun) -> None:
    run, terminal = make_dev, make_dev.terminal
    terminal.wait_for(rf"qqweb is running at {re.escape(run.web)}\b", timeout=300)
    with urllib.request.urlopen(f"{run.web}/accounts/login/", timeout=60) as response:  # noqa: S310
        assert response.status == 200  # the page answers as soon as the line is there

    opener = _signed_in(run.web, run.var)
    page = _overview(opener, run.web)
    assert '<a class="big" href="/notes/">500</a>' in page  # the demo memory is all there
    assert "not reachable" not in page
    assert "The knowledge graph is starting" in page or 'href="/graph/entities/">145<' in page

    terminal.wait_for(r"Demo graph: 145 entities, 300 relationships", timeout=420)
    page = _overview(opener, run.web)
    assert '<a class="big" href="/graph/entities/">145</a>' in page
    assert "The knowledge graph is starting" not in page
    # A quiet terminal: the pages answered above are not one line each after the banner.
    assert not re.search(r'"GET /[^"]* HTTP/1\.[01]" 200', terminal.text), terminal.text

    terminal.type(b"\x03")  # Ctrl-C
    try:
        stopped = run.process.wait(timeout=180)
    except subprocess.TimeoutExpired:
        raise AssertionError(
            f"make dev still running 180 s after Ctrl-C:\n{terminal.text}"
        ) from None
    assert stopped == 0
    time.sleep(0.5)  # the last lines through the terminal
    output = terminal.text
    assert re.search(r"Stopped\.\n", output)
    assert "\x1b" not in output, "escape codes in the output"
    assert "Error" not in output and "Traceback" not in output
    lines = [
        line
        for line in output.splitlines()
        if line.strip() and line.strip() != "^C" and not REQUEST_LOG.match(line)
    ]
    repeated = {line for line in lines if lines.count(line) > 1}
    assert not repeated, f"lines printed twice: {repeated}"
    assert output.count("qqweb is running at") == 1
