"""The SecantusDB daemon the tests share, started as ``make dev`` starts it."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from tests.services import ServiceStartError, free_port, log_tail, port_answers, stop


class SecantusService:
    """The SecantusDB daemon as ``make dev`` starts it (scripts/dev.sh: ``secantusd-py
    --host 127.0.0.1 --port P --storage-path DIR``), on a free port, in a process of its
    own: the tests then run against the server ``make dev`` runs, not ``SecantusDBServer``'s
    threads sharing the test process's GIL. (The "operation cancelled" failures of late,
    loaded runs were the client's side: see ``tests/plugins/heap.py``.)"""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.proc: subprocess.Popen[str] | None = None
        self.uri = ""

    def start(self) -> str:
        binary = Path(sys.executable).parent / "secantusd-py"
        if not binary.exists():
            raise ServiceStartError(f"{binary} is missing: `make install` installs secantusdb")
        self.workdir.mkdir(parents=True, exist_ok=True)
        port = free_port()
        log = self.workdir / "secantus.log"
        with open(log, "w") as out:
            self.proc = subprocess.Popen(
                [
                    str(binary),
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(port),
                    "--storage-path",
                    str(self.workdir / "data"),
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
                text=True,
            )
        deadline = time.monotonic() + 60
        while not port_answers(port):
            if self.proc.poll() is not None:
                raise ServiceStartError(
                    f"secantusd-py exited with {self.proc.returncode}:\n{log_tail(log)}"
                )
            if time.monotonic() > deadline:
                stop(self.proc)
                raise ServiceStartError(
                    f"secantusd-py did not listen within 60 s:\n{log_tail(log)}"
                )
            time.sleep(0.1)
        self.uri = f"mongodb://127.0.0.1:{port}/"
        return self.uri

    def stop(self) -> None:
        stop(self.proc)
