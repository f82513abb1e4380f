"""The SecantusDB daemon the tests share, started as ``make dev`` starts it."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from tests.services import ServiceStartError, _tail, free_port, port_answers, stop


class SecantusService:
    """The SecantusDB daemon as ``make dev`` starts it (scripts/dev.sh: ``secantusd-py
    --host 127.0.0.1 --port P --storage-path DIR``), on a free port, in a process of its
    own. In the pytest process (``SecantusDBServer``'s threads) every full garbage
    collection of a long run's heap, and the GIL the tests hold, stalled the server past
    the stores' 2 s timeout late in a loaded run."""

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
                    f"secantusd-py exited with {self.proc.returncode}:\n{_tail(log)}"
                )
            if time.monotonic() > deadline:
                stop(self.proc)
                raise ServiceStartError(f"secantusd-py did not listen within 60 s:\n{_tail(log)}")
            time.sleep(0.1)
        self.uri = f"mongodb://127.0.0.1:{port}/"
        return self.uri

    def stop(self) -> None:
        stop(self.proc)
