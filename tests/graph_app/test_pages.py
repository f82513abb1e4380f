"""The graph's HTML screens, used the way a curator uses them in a browser."""

from __future__ import annotations

from datetime import UTC, datetime
from urllib.parse import urlencode

import pytest
from django.urls import reverse

from graph_app.models import EntityPairVerdict
from graph_app.stores import graph_store
from qqweb.audit.models import AuditEvent
from tests.graph_app.conftest import embed_every_entity, graph_dump
from tests.helpers import vector


def test_the_overview_lists_the_most_mentioned_and_recently_seen(viewer_client, graph):
    page = viewer_client.get(reverse("graph_app:index")).content.decode()
    top = page.split('id="top-entities"')[1].split("</section>")[0]
    assert top.index(">Lumen<") < top.index(">Person 24<")
    recent = page.split('id="recent-entities"')[1].split("</section>")[0]
    assert recent.index(">Person 01<") < recent.index(">Lumen<") < recent.index(">Person 02<")


def test_the_search_page_finds_entities_by_meaning(viewer_client, graph):
    embed_every_entity()
    fragment = viewer_client.get(
        reverse("graph_app:search") + "?q=retrieval+service", HTTP_HX_REQUEST="true"
    ).content.decode()
    assert fragment.lstrip().startswith('<div id="entity-results">')
    assert fragment.index(">Lumen<") < fragment.index(">Person 00<")


def test_the_search_page_says_plainly_when_the_model_does_not_match(viewer_client, graph):
    graph_store().set_embeddings(
        [
            {"id": e.id, "embedding": [0.1] * 1024}
            for e in graph_store().list_entities(limit=100).items
        ]
    )
    response = viewer_client.get(reverse("graph_app:search") + "?q=Lumen")
    assert response.status_code == 400
    assert "384 dimensions but the stored vectors have 1024" in response.content.decode()


def test_a_curator_sees_the_curation_forms_and_a_viewer_does_not(
    viewer_client, curator_client, graph
):
    url = reverse("graph_app:entity", args=["Project", "Lumen"])
    assert 'id="entity-merge"' in curator_client.get(url).content.decode()
    assert 'id="entity-merge"' not in viewer_client.get(url).content.decode()
    edit = reverse("graph_app:edit", args=["Project", "Lumen"])
    assert viewer_client.post(edit, {"name": "X"}).status_code == 403


def test_the_edit_form_renames_and_says_how_to_undo(curator_client, graph):
    response = curator_client.post(
        reverse("graph_app:edit", args=["Project", "Lumen"]),
        {"name": "Lumen RAG", "description": "a retrieval service"},
        follow=True,
    )
    page = response.content.decode()
    assert response.redirect_chain[-1][0] == reverse(
        "graph_app:entity", args=["Project", "Lumen RAG"]
    )
    assert 'id="message-undo" data-undo-event=' in page and "lumen-rag, Lumen" in page


def test_the_name_of_an_undone_rename_leads_to_the_entitys_name_again(curator_client, graph):
    renamed = reverse("graph_app:entity", args=["Project", "Lumen RAG"])
    curator_client.post(reverse("graph_app:edit", args=["Project", "Lumen"]), {"name": "Lumen RAG"})
    event = AuditEvent.objects.get(action="entity.rename")
    undone = curator_client.post(
        reverse("memory_app:audit_undo", args=[event.pk]), {"next": renamed}, follow=True
    )
    assert undone.redirect_chain[-1][0] == reverse("graph_app:entity", args=["Project", "Lumen"])
    page = undone.content.decode()
    assert "Undone." in page and "“Lumen RAG” was renamed back to “Lumen”." in page
    assert (
        curator_client.get(reverse("graph_app:entity", args=["Project", "Nope"])).status_code == 404
    )


def test_the_merge_page_previews_then_merges(curator_client, graph):
    query = urlencode(
        {
            "source_label": "Software",
            "source_name": "Lumen",
            "target_label": "Project",
            "target_name": "Lumen",
        }
    )
    before = graph_dump()
    preview = curator_client.get(reverse("graph_app:merge") + "?" + query)
    assert preview.status_code == 200 and "the labels differ" in preview.content.decode()
    assert graph_dump() == before
    done = curator_client.post(
        reverse("graph_app:merge"), dict(pair.split("=") for pair in query.split("&"))
    )
    assert done.status_code == 302 and not graph_store().get_entities("Software", "Lumen")
    assert AuditEvent.objects.filter(action="entity.merge").count() == 1


def test_a_merge_page_for_a_missing_entity_says_so(curator_client, graph):
    query = "source_label=Software&source_name=Nope&target_label=Project&target_name=Lumen"
    response = curator_client.get(reverse("graph_app:merge") + "?" + query)
    assert response.status_code == 404 and "there is no Software named" in response.content.decode()


def test_the_delete_page_previews_the_impact_then_deletes(curator_client, graph):
    url = reverse("graph_app:delete", args=["Project", "Lumen"])
    preview = curator_client.get(url).content.decode()
    assert "Left orphaned" in preview and ">Person 03<" in preview and ">MongoDB<" in preview
    assert graph_store().get_entities("Project", "Lumen")
    assert curator_client.post(url).status_code == 302
    assert not graph_store().get_entities("Project", "Lumen")


def test_the_relationship_form_deletes_one_relationship(curator_client, graph):
    response = curator_client.post(
        reverse("graph_app:relationship_change"),
        {
            "start_label": "Project",
            "start_name": "Lumen",
            "type": "USES",
            "end_label": "Software",
            "end_name": "MongoDB",
            "action": "delete",
        },
        follow=True,
    )
    assert "Relationship deleted" in response.content.decode()
    assert graph_store().entity_state("Software", "MongoDB").rels == []


def test_orphans_are_listed(viewer_client, graph):
    page = viewer_client.get(reverse("graph_app:orphans")).content.decode()
    assert ">Person 00<" in page and ">MongoDB<" not in page
    found = {(o["label"], o["name"]) for o in viewer_client.get("/api/graph/orphans").json()}
    assert ("Person", "Person 00") in found and ("Software", "Lumen") in found
    assert ("Project", "Lumen") not in found and ("Person", "Person 03") not in found


def test_duplicate_candidates_and_a_remembered_verdict(curator_client, graph):
    store = graph_store()
    store.merge_entities(
        "Concept",
        [{"name": "Vector DB", "props": {"embedding": vector("Vector DB: stores vectors")}}],
    )
    store.merge_entities(
        "Software",
        [{"name": "VectorDB", "props": {"embedding": vector("Vector DB: stores vectors")}}],
    )
    found = curator_client.get("/api/graph/duplicates").json()
    pairs = {(c["a"]["name"], c["b"]["name"], c["reason"]) for c in found}
    assert ("Lumen", "Lumen", "same name") in pairs
    assert any({a, b} == {"Vector DB", "VectorDB"} and why == "similar" for a, b, why in pairs)
    verdict = curator_client.post(
        "/api/graph/duplicates/verdict",
        {
            "a": {"label": "Concept", "name": "Vector DB"},
            "b": {"label": "Software", "name": "VectorDB"},
            "verdict": "not_duplicate",
        },
        content_type="application/json",
    )
    assert verdict.status_code == 201 and EntityPairVerdict.objects.count() == 1
    again = {
        (c["a"]["name"], c["b"]["name"]) for c in curator_client.get("/api/graph/duplicates").json()
    }
    assert not any({a, b} == {"Vector DB", "VectorDB"} for a, b in again)
    page = curator_client.get(reverse("graph_app:duplicates")).content.decode()
    assert "same name" in page and "VectorDB" not in page
    event = AuditEvent.objects.get(action="entity_pair.verdict")
    assert curator_client.post(f"/api/audit/{event.pk}/undo").status_code == 200
    assert EntityPairVerdict.objects.count() == 0


def test_a_merge_verdict_merges_the_pair(curator_client, graph):
    response = curator_client.post(
        "/api/graph/duplicates/verdict",
        {
            "a": {"label": "Project", "name": "Lumen"},
            "b": {"label": "Software", "name": "Lumen"},
            "verdict": "merge",
        },
        content_type="application/json",
    )
    assert response.status_code == 200 and response.json()["applied"] is True
    assert not graph_store().get_entities("Software", "Lumen")


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"source_label": "", "source_name": "Lumen"}, "source_label"),
        ({"source_label": "Person\n", "source_name": "Lumen"}, "source_label"),
        ({"source_label": "Project", "source_name": ""}, "source_name"),
        ({"source_label": "Project", "source_name": "x" * 301}, "source_name"),
        (
            {"source_label": "Project", "source_name": "Lumen", "description": "x" * 4001},
            "description",
        ),
    ],
)
def test_the_merge_form_refuses_a_bad_field_with_a_400_naming_it(
    curator_client, graph, fields, named
):
    before = graph_dump()
    data = {"target_label": "Person", "target_name": "Person 01", **fields}
    response = curator_client.post(reverse("graph_app:merge"), data)
    assert response.status_code == 400
    assert named in response.content.decode()
    assert graph_dump() == before


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"start_label": ""}, "start_label"),
        ({"end_label": "Project Lumen"}, "end_label"),
        ({"type": "WORKS ON"}, "type"),
        ({"confidence": "NaN"}, "confidence"),
        ({"confidence": "inf"}, "confidence"),
        ({"confidence": "7"}, "confidence"),
        ({"new_type": "a-b"}, "new_type"),
        ({"action": "drop"}, "action"),
    ],
)
def test_the_relationship_form_refuses_a_bad_field_with_a_400_naming_it(
    curator_client, graph, fields, named
):
    before = graph_dump()
    data = {
        "start_label": "Person",
        "start_name": "Person 01",
        "type": "WORKS_ON",
        "end_label": "Project",
        "end_name": "Lumen",
        "description": "x",
        **fields,
    }
    response = curator_client.post(reverse("graph_app:relationship_change"), data)
    assert response.status_code == 400
    assert named in response.content.decode()
    assert graph_dump() == before


def test_the_entity_page_names_its_properties_in_words_and_its_dates_in_one_format(
    viewer_client, graph
):
    seen = datetime(2026, 11, 2, 2, 38, 5, 123456, tzinfo=UTC)  # a Neo4j DateTime once stored
    graph_store().merge_entities(
        "Location",
        [
            {
                "name": "Oslo",
                "props": {"canonical_name": "oslo", "first_seen": seen, "mention_count": 23},
            }
        ],
    )
    html = viewer_client.get(reverse("graph_app:entity", args=["Location", "Oslo"])).content
    page = html.decode()
    card = page[page.index("<h2>Properties</h2>") : page.index("<h2>Provenance")]
    assert '<dt title="canonical_name">Canonical name</dt><dd>oslo</dd>' in card
    assert '<dt title="mention_count">Mentions</dt><dd>23</dd>' in card
    assert (
        '<dt title="first_seen">First seen</dt><dd><time class="when" '
        'datetime="2026-11-02T02:38:05.123456Z" title="2026-11-02T02:38:05.123456+00:00">'
        "2 Nov 2026, 02:38 UTC</time></dd>"
    ) in card
    assert ">canonical_name<" not in card and ">first_seen<" not in card
    assert "No source recorded" in page and ":Source" not in page


def test_the_rename_and_delete_previews_speak_of_sources_and_entities_in_words(
    curator_client, graph
):
    """Lumen has one source (the fixture's), linked twice."""
    rename = curator_client.get(
        reverse("graph_app:edit", args=["Project", "Lumen"]),
        {"name": "Lumen RAG", "description": "a retrieval service"},
    ).content.decode()
    assert "a new entity of that name is created beside “Lumen RAG”" in rename
    assert "create_entity" not in rename and "'Lumen'" not in rename
    assert "the 1 source that mentions it, kept" in rename
    delete = curator_client.get(reverse("graph_app:delete", args=["Project", "Lumen"]))
    assert "its 2 links to the sources that mention it" in delete.content.decode()
    assert ":Source" not in delete.content.decode()
    overview = curator_client.get(reverse("graph_app:index")).content
    assert b":Source" not in overview and b"<dt>Sources</dt>" in overview
