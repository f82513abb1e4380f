import time

import pytest
from django.test import Client
from django.urls import reverse
from secantus import SecantusDBServer

from qqweb.health import cached_stores_health, forget_cached_health
from tests.services import free_port

pytestmark = pytest.mark.usefixtures("stores")


def test_healthz_shows_a_stopped_mongodb_as_down(db, settings, tmp_path):
    server = SecantusDBServer(storage_path=str(tmp_path / "other"), port=0)
    server.start()
    settings.MONGODB_URI = server.uri
    settings.QQ_STORE_TIMEOUT_MS = 500
    up = Client().get("/healthz").json()
    assert up["stores"]["mongodb"]["up"] is True
    server.stop()
    response = Client().get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "degraded"
    assert body["stores"]["mongodb"] == {"up": False, "latency_ms": None}
    assert body["stores"]["neo4j"]["up"] is True


def test_healthz_shows_an_unreachable_neo4j_as_down(db, settings):
    settings.NEO4J_URI = f"bolt://127.0.0.1:{free_port()}"
    settings.QQ_STORE_TIMEOUT_MS = 500
    body = Client().get("/healthz").json()
    assert body["stores"]["neo4j"]["up"] is False
    assert body["stores"]["mongodb"]["up"] is True


def test_a_missing_memory_dir_is_down_with_the_path(db, settings, tmp_path, viewer_client):
    settings.MEMORY_DIR = tmp_path / "nowhere"
    page = viewer_client.get(reverse("health")).content.decode()
    assert "does not exist" in page and str(tmp_path / "nowhere") in page


def test_the_layout_warns_on_every_page_when_a_store_is_down(settings, viewer_client):
    settings.NEO4J_URI = f"bolt://127.0.0.1:{free_port()}"
    settings.QQ_STORE_TIMEOUT_MS = 500
    cached_stores_health(wait=True)
    page = viewer_client.get(reverse("memory_app:notes")).content.decode()
    assert '<div class="banner warn" role="status">' in page
    assert "Neo4j is down" in page


def test_the_first_page_does_not_wait_for_the_checks_and_its_dots_bring_the_banner(
    settings, viewer_client
):
    """Before the process has an answer, a page shows the dots as "checking" and asks
    for them at once; the answer is the dots and, out of band, the banner."""
    settings.NEO4J_URI = f"bolt://127.0.0.1:{free_port()}"
    settings.QQ_STORE_TIMEOUT_MS = 500
    page = viewer_client.get(reverse("memory_app:notes")).content.decode()
    assert 'hx-trigger="load, every 30s"' in page
    assert 'title="checking the stores">checking</li>' in page
    assert 'id="store-banner"' in page  # where the answer puts the banner
    html = viewer_client.get(reverse("store_status"), HTTP_HX_REQUEST="true").content.decode()
    assert 'class="down" title="Neo4j: down' in html
    banner = html[html.index('<div id="store-banner" hx-swap-oob="true">') :]
    assert "<strong>Neo4j is down</strong>" in banner
    later = viewer_client.get(reverse("memory_app:notes")).content.decode()
    assert 'hx-trigger="every 30s"' in later and "checking" not in later
    assert "<strong>Neo4j is down</strong>" in later


def test_the_store_dots_refresh_as_an_htmx_partial(settings, viewer_client):
    cached_stores_health(wait=True)
    page = viewer_client.get(reverse("memory_app:overview")).content.decode()
    assert 'id="store-status"' in page and 'hx-trigger="every 30s"' in page
    settings.NEO4J_URI = f"bolt://127.0.0.1:{free_port()}"
    settings.QQ_STORE_TIMEOUT_MS = 300
    fragment = viewer_client.get(reverse("store_status"), HTTP_HX_REQUEST="true")
    html = fragment.content.decode()
    assert html.strip().startswith('<ul class="store-dots" id="store-status"')
    assert "<html" not in html
    assert 'class="down" title="Neo4j: down' in html


def test_the_store_dots_answer_at_once_and_see_a_store_go_down_in_the_background(
    settings, tmp_path, viewer_client
):
    """A page never waits for the checks once the process has an answer: a stale one is
    shown while one background check runs, and the next pages show what it found."""
    memory = tmp_path / "agent-memory"
    memory.mkdir()
    settings.MEMORY_DIR = memory
    forget_cached_health()
    assert cached_stores_health() is None  # no answer yet: the check runs meanwhile
    first = {s.name: s.up for s in cached_stores_health(wait=True) or ()}
    assert first["memory_dir"] is True
    memory.rmdir()
    stale = {s.name: s.up for s in cached_stores_health(max_age_s=0) or ()}
    assert stale["memory_dir"] is True  # the last answer, not a wait for a new check
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        now = {s.name: s.up for s in cached_stores_health() or ()}
        if not now["memory_dir"]:
            break
        time.sleep(0.05)
    assert now["memory_dir"] is False
    page = viewer_client.get(reverse("memory_app:overview")).content.decode()
    assert "Memory folder is down" in page


def test_the_health_page_and_the_dots_name_the_stores_in_words(settings, tmp_path, viewer_client):
    """ "Memory folder", not ``memory_dir``; the broker says which broker it is, not
    "sqla"; the API keeps the names."""
    settings.CELERY_BROKER_URL = f"sqla+sqlite:///{tmp_path / 'broker.sqlite3'}"
    forget_cached_health()
    cached_stores_health(wait=True)
    page = viewer_client.get(reverse("health")).content.decode()
    rows = page[page.index('id="store-health"') : page.index("</table>")]
    assert "<td>Memory folder</td>" in rows and "<td>MongoDB</td>" in rows
    assert "<td>Broker (SQLite, make dev)</td>" in rows and "answers: jobs can be queued" in rows
    assert "memory_dir" not in rows and "sqla" not in rows
    start = page.index('id="store-status"')
    dots = page[start : page.index("</ul>", start)]
    assert ">Memory folder</li>" in dots and 'title="Broker (SQLite, make dev): up' in dots
    assert "memory_dir" not in dots
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:6379/0"
    cached_stores_health(wait=True)
    assert 'title="Broker (Redis): ' in viewer_client.get(reverse("store_status")).content.decode()
    assert {s["name"] for s in viewer_client.get("/api/health").json()["stores"]} >= {
        "memory_dir",
        "broker",
    }
