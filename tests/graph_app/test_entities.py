"""Browsing the knowledge graph: entity list with keyset pages, one entity's page."""

import pytest
from django.urls import reverse

from graph_app.stores import graph_store
from tests.graph_app.conftest import embed_every_entity


def test_the_list_pages_through_every_entity_by_mentions(viewer_client, graph):
    names, cursor = [], ""
    while True:
        body = viewer_client.get(f"/api/graph/entities?limit=10&cursor={cursor}").json()
        names += [(e["label"], e["name"]) for e in body["items"]]
        if body["next_cursor"] is None:
            break
        cursor = body["next_cursor"]
    assert len(names) == len(set(names)) == 28
    assert names[:2] == [("Project", "Lumen"), ("Person", "Person 24")]


def test_the_list_filters_by_label_and_alias_and_sorts_by_last_seen(viewer_client, graph):
    by_alias = viewer_client.get("/api/graph/entities?q=LUMEN-RAG").json()["items"]
    assert [(e["label"], e["name"]) for e in by_alias] == [("Project", "Lumen")]
    people = viewer_client.get("/api/graph/entities?label=Person&sort=last_seen&limit=3").json()
    assert [e["name"] for e in people["items"]] == ["Person 00", "Person 01", "Person 02"]


@pytest.mark.parametrize(
    ("query", "field"),
    [("label=Person`) DETACH DELETE n//", "label"), ("sort=name", "sort"), ("cursor=!!", "cursor")],
)
def test_bad_list_parameters_are_refused_naming_them(viewer_client, graph, query, field):
    response = viewer_client.get(f"/api/graph/entities?{query}")
    assert response.status_code == 400 and response.json()["error"]["field"] == field
    assert graph_store().count_entities() == 28


def test_the_entity_shows_relationships_provenance_and_the_notes_naming_it(viewer_client, graph):
    body = viewer_client.get("/api/graph/entities/Project/Lumen").json()
    assert body["aliases"] == ["lumen-rag"] and body["embedding_dimension"] == 384
    assert [(r["type"], r["other_name"]) for r in body["outgoing"]] == [("USES", "MongoDB")]
    assert body["outgoing"][0]["props"]["evidence"] == "said so"
    assert [(r["type"], r["other_name"]) for r in body["incoming"]] == [("WORKS_ON", "Person 03")]
    assert [s["source_id"] for s in body["provenance"]] == ["session:abc"]
    assert {n["note_id"] for n in body["notes"]} == {"note_0000000000a1", "note_0000000000a2"}
    assert body["same_name_elsewhere"] == ["Software"]


def test_a_missing_entity_is_a_404(viewer_client, graph):
    response = viewer_client.get("/api/graph/entities/Project/Nope")
    assert response.status_code == 404 and response.json()["error"]["name"] == "Nope"
    assert (
        viewer_client.get(reverse("graph_app:entity", args=["Project", "Nope"])).status_code == 404
    )


def test_the_pages_list_and_show_entities(viewer_client, graph):
    listing = viewer_client.get(
        reverse("graph_app:entities") + "?label=Project", HTTP_HX_REQUEST="true"
    ).content.decode()
    assert listing.lstrip().startswith('<div id="entities-table">')
    assert reverse("graph_app:entity", args=["Project", "Lumen"]) in listing
    page = viewer_client.get(
        reverse("graph_app:entity", args=["Project", "Lumen"])
    ).content.decode()
    assert "also a Software" in page and "session:abc" in page and "Lumen uses MongoDB" in page


def test_semantic_entity_search_ranks_by_the_name_and_description(viewer_client, graph):

    embed_every_entity()
    body = viewer_client.post(
        "/api/graph/entities/search",
        '{"query": "retrieval service"}',
        content_type="application/json",
    ).json()
    assert body["results"][0]["name"] == "Lumen" and body["results"][0]["label"] == "Project"
    assert body["compared"] == 28 and body["model"] == "hashing-384"


def test_semantic_entity_search_says_when_the_model_does_not_match(viewer_client, graph):
    graph_store().set_embeddings(
        [
            {"id": e.id, "embedding": [0.1] * 1024}
            for e in graph_store().list_entities(limit=100).items
        ]
    )
    response = viewer_client.post(
        "/api/graph/entities/search", '{"query": "Lumen"}', content_type="application/json"
    )
    assert response.status_code == 422
    assert "384 dimensions but the stored vectors have 1024" in response.json()["error"]["message"]
