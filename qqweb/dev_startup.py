"""What ``make dev`` is still starting, so the pages can say "starting" instead of "down".

``scripts/dev.sh`` serves the first page before Neo4j answers (building and starting it
takes 30-90 s on a first run). Meanwhile it keeps ``DEV_STARTING_FILE`` (under the var
folder) up to date, as ``{"pid": <dev.sh>, "graph": "<what it is doing>", "since": <epoch
seconds>}``, and removes it once Neo4j answers and the demo graph is in. A file whose
writer is gone (a ``dev.sh`` killed meanwhile) means nothing. Production never writes it.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass

from django.conf import settings


@dataclass(frozen=True)
class Starting:
    what: str  # "the JVM is starting up", "loading the demo graph", ...
    seconds: int  # since that step began

    def __str__(self) -> str:
        return f"{self.what}, {self.seconds} s so far"


def _alive(pid: object) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def graph_starting() -> Starting | None:
    """What ``make dev`` is doing to bring the graph up, or None (nothing is starting)."""
    try:
        state = json.loads(settings.DEV_STARTING_FILE.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(state, dict) or not _alive(state.get("pid")):
        return None
    what, since = state.get("graph"), state.get("since")
    if not isinstance(what, str) or not what or not isinstance(since, int | float):
        return None
    return Starting(what, max(0, int(time.time() - since)))
