"""While `make dev` starts Neo4j after the first page, the pages say the graph is starting
(what scripts/dev.sh writes in var/dev-starting.json), not that it is down."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse

from memory_app.notes.stores import notes_store
from qqweb.health import cached_stores_health
from tests.services import free_port

pytestmark = pytest.mark.usefixtures("mongo", "memory_dir")


@pytest.fixture
def graph_down(settings: Any, tmp_path: Path) -> Path:
    """Neo4j not answering (nothing listens on its port), and where dev.sh would say why."""
    settings.NEO4J_URI = f"bolt://127.0.0.1:{free_port()}"
    settings.QQ_STORE_TIMEOUT_MS = 500
    settings.DEV_STARTING_FILE = tmp_path / "dev-starting.json"
    return settings.DEV_STARTING_FILE


def _starting(path: Path, pid: int, what: str, ago_s: int) -> None:
    path.write_text(json.dumps({"pid": pid, "graph": what, "since": int(time.time()) - ago_s}))


def test_the_overview_says_the_graph_is_starting_while_make_dev_starts_it(
    viewer_client: Any, graph_down: Path
) -> None:
    notes_store().upsert_note("note_aaaaaaaaaaaa", "Lumen uses MongoDB", [], "Important Facts")
    _starting(graph_down, os.getpid(), "the database is starting", ago_s=12)
    cached_stores_health(wait=True)  # the process has checked the stores once
    response = viewer_client.get(reverse("memory_app:overview"))
    assert response.status_code == 200
    page = response.content.decode()
    assert "The knowledge graph is starting</strong>: the database is starting, 1" in page
    assert "<strong>Neo4j is starting</strong>" in page  # the banner on every page
    assert "not reachable" not in page and "neo4j is down" not in page
    assert '<a class="big" href="/notes/">1</a>' in page  # the rest is shown meanwhile


def test_the_graph_page_says_it_is_starting_too(viewer_client: Any, graph_down: Path) -> None:
    _starting(graph_down, os.getpid(), "building its launcher with Maven", ago_s=3)
    page = viewer_client.get(reverse("graph_app:index")).content.decode()
    assert "The knowledge graph is starting</strong>: building its launcher with Maven" in page


def test_a_note_left_by_a_dev_script_that_is_gone_is_ignored(
    viewer_client: Any, graph_down: Path
) -> None:
    gone = subprocess.Popen(["true"])
    gone.wait()
    _starting(graph_down, gone.pid, "the database is starting", ago_s=400)
    page = viewer_client.get(reverse("memory_app:overview")).content.decode()
    assert "The knowledge graph is not reachable" in page
    assert "is starting" not in page


def test_the_health_api_reports_the_graph_down_while_it_starts(
    viewer_client: Any, graph_down: Path
) -> None:
    _starting(graph_down, os.getpid(), "the database is starting", ago_s=5)
    stores = {s["name"]: s for s in viewer_client.get("/api/health").json()["stores"]}
    assert stores["neo4j"]["up"] is False
    assert stores["neo4j"]["detail"].startswith("the database is starting, ")
