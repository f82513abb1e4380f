"""Start the real services the tests run against: SecantusDB (the ``secantusd-py``
daemon ``make dev`` runs, tests/secantus_service.py), Neo4j (the launcher in scripts/),
Redis (Debian's redis-server), a Celery worker, and PostgreSQL (Debian's postgresql) when
the run asks for it (tests/plugins/database.py).

Nothing here skips: a service that cannot start raises ``ServiceStartError`` naming
what is missing, and every test that needs it fails with that message.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psycopg
import psycopg.sql

from qqweb.celery import app as celery_app

ROOT = Path(__file__).resolve().parent.parent


class ServiceStartError(RuntimeError):
    pass


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def port_answers(port: int, host: str = "127.0.0.1") -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def _wait_for_line(proc: subprocess.Popen[str], marker: str, log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise ServiceStartError(f"process exited with {proc.returncode}:\n{log_tail(log)}")
        if marker in log.read_text(errors="replace"):
            return
        time.sleep(0.25)
    proc.kill()
    raise ServiceStartError(f"no {marker!r} within {timeout:.0f} s:\n{log_tail(log)}")


def log_tail(log: Path, lines: int = 30) -> str:
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:]) if log.exists() else ""


def stop(proc: subprocess.Popen[Any] | None, timeout: float = 20) -> None:
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


class Neo4jService:
    """Reuses a Neo4j the tests started earlier and left running (QQ_KEEP_NEO4J=1), or
    one named by QQ_TEST_NEO4J_URI; otherwise starts the launcher on a free port."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.proc: subprocess.Popen[str] | None = None
        self.uri = ""

    def start(self, reuse_uri: str = "") -> str:
        if reuse_uri:
            self.uri = reuse_uri
            return self.uri
        port_file = self.home / "launcher.port"
        if port_file.exists() and port_answers(int(port_file.read_text())):
            self.uri = f"bolt://127.0.0.1:{int(port_file.read_text())}"
            return self.uri
        if shutil.which("java") is None or shutil.which("mvn") is None:
            raise ServiceStartError(
                "Neo4j needs a JDK 17+ and Maven on PATH (apt-get install openjdk-17-jdk "
                "maven); .ci/run installs them"
            )
        build = subprocess.run(
            [str(ROOT / "scripts/neo4j.sh"), "build"], capture_output=True, text=True, check=False
        )
        if build.returncode != 0:
            raise ServiceStartError(f"building the Neo4j launcher failed:\n{build.stderr[-3000:]}")
        port = free_port()
        self.proc = run_neo4j(self.home, port)
        port_file.write_text(str(port))
        self.uri = f"bolt://127.0.0.1:{port}"
        return self.uri

    def stop(self, keep: bool) -> None:
        if self.proc is None or keep:
            return
        stop(self.proc, timeout=60)
        (self.home / "launcher.port").unlink(missing_ok=True)


def run_neo4j(home: Path, port: int) -> subprocess.Popen[str]:
    """The launcher on ``port`` with its data under ``home``, once it answers (a test that
    stops and starts Neo4j calls this again with the same port and home)."""
    home.mkdir(parents=True, exist_ok=True)
    log = home / "launcher.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [str(ROOT / "scripts/neo4j.sh"), "run", str(home / "data"), str(port)],
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
    _wait_for_line(proc, "QQWEB-NEO4J-READY", log, timeout=180)
    return proc


def start_redis(workdir: Path) -> tuple[str, subprocess.Popen[str]]:
    binary = shutil.which("redis-server")
    if binary is None:
        raise ServiceStartError(
            "redis-server is not installed: apt-get install redis-server (.ci/run does)"
        )
    port = free_port()
    workdir.mkdir(parents=True, exist_ok=True)
    log = workdir / "redis.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [
                binary,
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(workdir),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
        )
    _wait_for_line(proc, "Ready to accept connections", log, timeout=30)
    return f"redis://127.0.0.1:{port}/0", proc


def start_celery_worker(
    env: dict[str, str],
    workdir: Path,
    queue: str = "celery",
    name: str = "qqweb-test",
    pool: tuple[str, ...] = ("--pool=solo", "--concurrency=1"),
) -> subprocess.Popen[str]:
    log = workdir / f"{name}.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "qqweb",
                "worker",
                *pool,
                "--loglevel=INFO",
                f"--hostname={name}@%h",
                "-Q",
                queue,
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
            ],
            cwd=ROOT,
            env={**os.environ, **env},
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
        )
    _wait_for_line(proc, "ready.", log, timeout=120)
    return proc


def start_celery_beat(env: dict[str, str], workdir: Path) -> subprocess.Popen[str]:
    """Beat as ``scripts/dev.sh`` starts it (``celery -A qqweb beat``, the scheduler from
    the settings), once it says it started."""
    log = workdir / "beat.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "qqweb", "beat", "--loglevel=INFO"],
            cwd=ROOT,
            env={**os.environ, **env},
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
        )
    _wait_for_line(proc, "beat: Starting", log, timeout=120)
    return proc


# Where a store's settings point while its fixture is not requested (tests/conftest.py):
# nothing listens on port 9 (discard) of the loopback.
CLOSED = "127.0.0.1:9"


def celery_uses(url: str, result_backend: str | None = None) -> None:
    """Point the Celery app's broker at ``url`` and its result backend at
    ``result_backend`` (the same URL by default). The app read its settings once and keeps
    its connection pool, producer pool and backend, so forget those too: the next publish
    takes them from kombu's pools for the new URL."""
    backend = result_backend or url
    if celery_app.conf.broker_url == url and celery_app.conf.result_backend == backend:
        return
    celery_app.conf.broker_url = url
    celery_app.conf.result_backend = backend
    celery_app._pool = None
    if "amqp" in celery_app.__dict__:
        celery_app.amqp._producer_pool = None
    celery_app._backend_cache = None
    celery_app._local.__dict__.pop("backend", None)


class PostgresCluster:
    """A throwaway PostgreSQL cluster for Django's tables (QQ_TEST_DATABASE=postgres):
    ``initdb`` in a temporary directory, the server on a free port of the loopback with
    fsync off (nothing in it outlives the run), stopped and deleted by :meth:`stop`.

    The binaries are Debian's (``apt-get install postgresql``: /usr/lib/postgresql/<version>/
    bin, the newest version there) or the first ``initdb`` on PATH. initdb and the server
    refuse to run as root: as root (CI) they run as the ``postgres`` system user the
    package creates, in a directory it owns."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[str] | None = None
        self.workdir: Path | None = None
        self.port = 0
        self.url = ""
        self.version = ""

    def start(self) -> str:
        bindir = postgres_bindir()
        user = _postgres_user()
        self.workdir = Path(tempfile.mkdtemp(prefix="qqweb-test-postgres-"))
        data = self.workdir / "data"
        if user is not None:
            os.chown(self.workdir, user.pw_uid, user.pw_gid)
        as_user: dict[str, Any] = (
            {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []} if user else {}
        )
        init = subprocess.run(
            [str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust",
             "--encoding=UTF8", "--locale=C.UTF-8", "--no-sync"],
            capture_output=True, text=True, check=False, cwd=self.workdir, **as_user,
        )  # fmt: skip
        if init.returncode != 0:
            raise ServiceStartError(f"initdb failed:\n{init.stdout[-2000:]}{init.stderr[-2000:]}")
        port = free_port()
        log = self.workdir / "postgres.log"
        settings = {
            "listen_addresses": "127.0.0.1",
            "port": str(port),
            "unix_socket_directories": str(self.workdir),
            "fsync": "off",
            "synchronous_commit": "off",
            "full_page_writes": "off",
            "max_connections": "200",
        }
        with open(log, "w") as out:
            if user is not None:
                os.chown(log, user.pw_uid, user.pw_gid)
            self.proc = subprocess.Popen(
                [str(bindir / "postgres"), "-D", str(data)]
                + [arg for name, value in settings.items() for arg in ("-c", f"{name}={value}")],
                stdout=out,
                stderr=subprocess.STDOUT,
                text=True,
                cwd=self.workdir,
                start_new_session=True,
                **as_user,
            )
        _wait_for_line(self.proc, "database system is ready to accept connections", log, 60)
        self.version = (data / "PG_VERSION").read_text().strip()
        self.port = port
        self.url = self.database_url("qqweb")
        return self.url

    def database_url(self, name: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{name}"

    def create_database(self, name: str) -> str:
        """A new empty database ``name`` in the cluster; returns its URL."""
        with psycopg.connect(self.database_url("postgres"), autocommit=True) as conn:
            conn.execute(psycopg.sql.SQL("CREATE DATABASE {}").format(psycopg.sql.Identifier(name)))
        return self.database_url(name)

    def drop_database(self, name: str) -> None:
        """Drop ``name``, closing whatever connections are still open to it."""
        with psycopg.connect(self.database_url("postgres"), autocommit=True) as conn:
            conn.execute(
                psycopg.sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
                    psycopg.sql.Identifier(name)
                )
            )

    def stop(self) -> None:
        """Fast shutdown (SIGINT: open connections are closed), then the directory goes."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)


def postgres_bindir() -> Path:
    """Where initdb and postgres are: Debian's newest /usr/lib/postgresql/<version>/bin, or
    the directory of the ``initdb`` on PATH."""
    versions = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda path: int(path.parent.parent.name) if path.parent.parent.name.isdigit() else 0,
    )
    if versions:
        return versions[-1].parent
    on_path = shutil.which("initdb")
    if on_path is not None:
        return Path(on_path).resolve().parent
    raise ServiceStartError(
        "PostgreSQL is not installed (no initdb): apt-get install postgresql (.ci/run does)"
    )


def _postgres_user() -> pwd.struct_passwd | None:
    """The user initdb and the server run as when this process is root (they refuse
    root): the ``postgres`` system user; None when not root (they run as this user)."""
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam("postgres")
    except KeyError:
        raise ServiceStartError(
            "running as root, PostgreSQL needs the 'postgres' system user to run as "
            "(apt-get install postgresql creates it)"
        ) from None
