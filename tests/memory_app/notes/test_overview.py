"""The Overview shows real counts from every store: the wiring end to end."""

import re

import pytest
from django.core.management import call_command
from django.urls import reverse

from graph_app.stores import graph_store
from memory_app.notes.stores import notes_store
from tests.services import free_port

pytestmark = pytest.mark.usefixtures("stores")


def _card(page: str, card_id: str) -> str:
    match = re.search(rf'<section class="card" id="{card_id}">(.*?)</section>', page, re.S)
    assert match, f"no {card_id} on the page"
    return match.group(1)


def test_overview_counts_notes_by_section_archive_lines_and_graph(viewer_client):
    call_command("seed_demo")
    by_section = notes_store().count_by_section()
    labels = graph_store().count_by_label()
    page = viewer_client.get(reverse("memory_app:overview")).content.decode()

    notes = _card(page, "notes-card")
    assert f'<a class="big" href="/notes/">{sum(by_section.values())}</a>' in notes
    for section, count in by_section.items():
        assert f'aria-label="{section.replace("&", "&amp;")}: {count}"' in notes

    archive_lines = len((viewer_client_memory_dir() / "archive.jsonl").read_text().splitlines())
    # every line, restored ones included: what the number counts
    assert f'<a class="big" href="/archive/?include_restored=on">{archive_lines}</a>' in _card(
        page, "archive-card"
    )

    graph = _card(page, "graph-card")
    for label, count in labels.items():
        assert f'aria-label="{label}: {count}"' in graph
    assert "Source" not in labels


def viewer_client_memory_dir():
    from django.conf import settings

    return settings.MEMORY_DIR


def test_overview_still_shows_the_notes_when_the_graph_is_down(viewer_client, settings):
    notes_store().upsert_note("note_aaaaaaaaaaaa", "Lumen uses MongoDB", [], "Important Facts")
    settings.NEO4J_URI = f"bolt://127.0.0.1:{free_port()}"
    settings.QQ_STORE_TIMEOUT_MS = 500
    response = viewer_client.get(reverse("memory_app:overview"))
    assert response.status_code == 200
    page = response.content.decode()
    assert '<a class="big" href="/notes/">1</a>' in _card(page, "notes-card")
    assert "The knowledge graph is not reachable" in page
    assert "JDK 17+" in page


def test_overview_says_so_when_mongodb_is_down(viewer_client, settings):
    settings.MONGODB_URI = f"mongodb://127.0.0.1:{free_port()}"
    settings.QQ_STORE_TIMEOUT_MS = 300
    page = viewer_client.get(reverse("memory_app:overview")).content.decode()
    assert "MongoDB is down" in _card(page, "notes-card")
