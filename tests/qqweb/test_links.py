"""The apps read each other only through the kernel's link registry (qqweb.lib.links):
the graph registers the entities a text names and its summary, the notes the notes that
name an entity. Without the other app registered, each page still shows its own part."""

import json
from collections.abc import Iterator

import pytest
from django.urls import reverse

from graph_app.selectors.links import GraphEntitiesReader
from graph_app.stores import graph_store
from memory_app.notes.selectors.links import NotesMentionsReader
from qqweb.lib.links import register_entities_reader, register_notes_reader
from tests.helpers import add_note

pytestmark = pytest.mark.usefixtures("stores")


@pytest.fixture
def lumen(stores: dict) -> None:
    graph_store().merge_entities(
        "Project", [{"name": "Lumen", "props": {"description": "a retrieval service"}}]
    )
    add_note("note_0000000000a1", "Lumen uses MongoDB for vector search")


@pytest.fixture
def without_graph() -> Iterator[None]:
    register_entities_reader(None)
    yield
    register_entities_reader(GraphEntitiesReader())


@pytest.fixture
def without_notes() -> Iterator[None]:
    register_notes_reader(None)
    yield
    register_notes_reader(NotesMentionsReader())


def _preview(client, message: str) -> dict:
    return client.post(
        "/api/retrieval/preview", json.dumps({"message": message}), content_type="application/json"
    ).json()


def test_the_preview_names_the_graphs_entities_through_the_registry(viewer_client, lumen):
    body = _preview(viewer_client, "What is Lumen?")
    assert [(e["label"], e["name"]) for e in body["entities"]] == [("Project", "Lumen")]


def test_without_a_graph_the_preview_cites_notes_and_names_no_entity(
    viewer_client, lumen, without_graph
):
    body = _preview(viewer_client, "Lumen uses MongoDB for vector search")
    assert [n["note_id"] for n in body["notes"]] == ["note_0000000000a1"]
    assert body["entities"] == [] and body["warnings"] == []


def test_without_a_graph_the_overview_says_so_and_shows_the_notes(
    viewer_client, lumen, without_graph
):
    page = viewer_client.get(reverse("memory_app:overview")).content.decode()
    assert '<a class="big" href="/notes/">1</a>' in page
    assert "The knowledge graph is not reachable" in page
    assert "No knowledge graph app is installed." in page


def test_without_notes_the_entity_page_shows_the_entity_and_no_note(
    viewer_client, lumen, without_notes
):
    body = viewer_client.get("/api/graph/entities/Project/Lumen").json()
    assert body["name"] == "Lumen" and body["notes"] == []
    page = viewer_client.get(reverse("graph_app:entity", args=["Project", "Lumen"]))
    assert page.status_code == 200 and "a retrieval service" in page.content.decode()
