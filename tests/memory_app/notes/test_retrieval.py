"""The retrieval preview: core notes, cited notes, named entities, the markdown block."""

import json
from datetime import UTC, datetime

import pytest
from django.urls import reverse

from graph_app.stores import graph_store
from memory_app.notes.stores import core_notes
from tests.helpers import add_note as add
from tests.services import free_port

pytestmark = pytest.mark.usefixtures("stores")


@pytest.fixture
def memory(stores):
    core_notes().add_core("My name is Dana", "Identity")
    add("note_0000000000a1", "Lumen uses MongoDB for vector search")
    add("note_0000000000a2", "Lumen uses MongoDB for vector search at work", importance=0.0)
    add("note_0000000000a3", "Priya reviews pull requests on Fridays")
    store = graph_store()
    now = datetime.now(UTC)
    store.merge_entities(
        "Project",
        [
            {
                "name": "Lumen",
                "props": {
                    "description": "a retrieval service",
                    "mention_count": 5,
                    "first_seen": now,
                    "aliases": ["lumen-rag"],
                },
            }
        ],
    )
    store.merge_entities("Software", [{"name": "MongoDB", "props": {"description": "a database"}}])
    store.merge_relationships(
        "Project", "USES", "Software", [{"a": "Lumen", "b": "MongoDB", "props": {}}]
    )


def test_the_preview_cites_relevant_important_notes_and_named_entities(viewer_client, memory):
    body = viewer_client.post(
        "/api/retrieval/preview",
        json.dumps({"message": "How does Lumen use MongoDB for vector search?"}),
        content_type="application/json",
    ).json()
    assert [n["note_id"] for n in body["notes"]] == ["note_0000000000a1"]
    assert "effective importance is below 0.2" in body["warnings"][0]
    assert {e["name"] for e in body["entities"]} == {"Lumen", "MongoDB"}
    lumen = next(e for e in body["entities"] if e["name"] == "Lumen")
    assert lumen["rels"] == [{"type": "USES", "other": "MongoDB", "outgoing": True}]
    markdown = body["markdown"]
    assert markdown.startswith("## Core Memory\n### Identity\n- My name is Dana")
    assert "- Lumen uses MongoDB for vector search (relevance" in markdown
    assert "- Lumen (Project): a retrieval service\n  - → USES MongoDB" in markdown


def test_an_alias_names_an_entity(viewer_client, memory):
    body = viewer_client.post(
        "/api/retrieval/preview",
        json.dumps({"message": "what about lumen-rag"}),
        content_type="application/json",
    ).json()
    assert [e["name"] for e in body["entities"]] == ["Lumen"]


def test_the_page_links_every_item_and_swaps_as_a_fragment(viewer_client, memory):
    response = viewer_client.get(
        reverse("memory_app:retrieval") + "?message=Lumen+MongoDB+vector+search",
        HTTP_HX_REQUEST="true",
    )
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="retrieval-preview">')
    assert reverse("memory_app:note_detail", args=["note_0000000000a1"]) in html
    assert "## Relevant Notes" in html


def test_an_empty_message_is_a_400(viewer_client, memory):
    assert viewer_client.get(reverse("memory_app:retrieval") + "?message=+").status_code == 400
    assert (
        viewer_client.post(
            "/api/retrieval/preview", json.dumps({"message": ""}), content_type="application/json"
        ).status_code
        == 422
    )


def test_a_graph_that_is_down_is_a_warning(viewer_client, settings, memory):
    settings.NEO4J_URI = f"bolt://127.0.0.1:{free_port()}"
    settings.QQ_STORE_TIMEOUT_MS = 300
    body = viewer_client.post(
        "/api/retrieval/preview", json.dumps({"message": "Lumen"}), content_type="application/json"
    ).json()
    assert body["entities"] == [] and any("neo4j is unavailable" in w for w in body["warnings"])
