"""Curating the graph through the API: description, rename, merge, delete, relationships;
every action audited, and undo puts the graph back exactly."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import pytest

from graph_app.stores import graph_store
from qqweb.audit.models import AuditEvent
from tests.graph_app.conftest import graph_dump, run_cypher
from tests.helpers import vector

HOSTILE = "Lumen'}) DETACH DELETE n //`"


def _json(client: Any, method: str, url: str, body: dict[str, Any] | None = None) -> Any:
    return getattr(client, method)(url, json.dumps(body or {}), content_type="application/json")


def _undo(client: Any, audit_id: int) -> Any:
    return client.post(f"/api/audit/{audit_id}/undo")


@pytest.fixture
def two_lumens(graph):
    """Software 'Lumen' with its own relationships: one the Project also has (combined),
    one only it has (moved), one to the Project (dropped), and provenance both share."""
    store = graph_store()
    store.merge_relationships(
        "Software",
        "DEPENDS_ON",
        "Software",
        [{"a": "Lumen", "b": "MongoDB", "props": {"mention_count": 2}}],
    )
    store.merge_relationships(
        "Person",
        "WORKS_ON",
        "Software",
        [{"a": "Person 03", "b": "Lumen", "props": {"mention_count": 4, "evidence": "pr"}}],
    )
    store.merge_relationships(
        "Project", "PACKAGED_AS", "Software", [{"a": "Lumen", "b": "Lumen", "props": {}}]
    )
    store.link_source(("Software", "Lumen"), "session:abc", {"source_type": "conversation"})
    store.link_source(
        ("Software", "Lumen"), "sha256:f1", {"source_type": "file", "file_path": "/src/lumen.py"}
    )
    run_cypher(
        "MATCH (n:Software {name: 'Lumen'}) SET n.mention_count = 5, n.aliases = ['lumen-pkg'],"
        " n.first_seen = datetime('2026-01-01T00:00:00.000000001Z')"
    )


def test_editing_the_description_re_embeds_and_undo_restores_exactly(curator_client, graph):
    before = graph_dump()
    response = _json(
        curator_client, "patch", "/api/graph/entities/Project/Lumen", {"description": "a RAG API"}
    )
    assert response.status_code == 200, response.content
    state = graph_store().entity_state("Project", "Lumen")
    assert state.props["description"] == "a RAG API"
    assert state.props["embedding"] == pytest.approx(vector("Lumen: a RAG API"), abs=1e-6)
    event = AuditEvent.objects.get(pk=response.json()["audit_id"])
    assert event.action == "entity.edit" and event.target_id == "Project:Lumen"
    assert _undo(curator_client, event.pk).status_code == 200
    assert graph_dump() == before


def test_rename_keeps_the_old_name_as_alias_and_every_relationship(curator_client, graph):
    before = graph_dump()
    response = _json(
        curator_client, "patch", "/api/graph/entities/Project/Lumen", {"name": "Lumen RAG"}
    )
    assert response.json()["aliases"] == ["lumen-rag", "Lumen"]
    body = curator_client.get("/api/graph/entities/Project/Lumen RAG").json()
    assert [(r["type"], r["other_name"]) for r in body["outgoing"]] == [("USES", "MongoDB")]
    assert [(r["type"], r["other_name"]) for r in body["incoming"]] == [("WORKS_ON", "Person 03")]
    assert [s["source_id"] for s in body["provenance"]] == ["session:abc"]
    assert curator_client.get("/api/graph/entities/Project/Lumen").status_code == 404
    assert _undo(curator_client, response.json()["audit_id"]).status_code == 200
    assert graph_dump() == before


def test_rename_onto_a_taken_name_is_refused_and_changes_nothing(curator_client, graph):
    before = graph_dump()
    response = _json(
        curator_client, "patch", "/api/graph/entities/Person/Person 01", {"name": "Person 02"}
    )
    assert response.status_code == 409 and response.json()["error"]["field"] == "new_name"
    assert graph_dump() == before


def test_the_merge_preview_is_what_the_merge_then_does(curator_client, two_lumens):
    body = {
        "source": {"label": "Software", "name": "Lumen"},
        "target": {"label": "Project", "name": "Lumen"},
    }
    preview = _json(curator_client, "post", "/api/graph/entities/merge", {**body, "dry_run": True})
    assert preview.status_code == 200 and preview.json()["applied"] is False
    plan = preview.json()
    assert graph_store().get_entities("Software", "Lumen"), "a dry run writes nothing"
    assert sorted((r["type"], r["other_name"]) for r in plan["combined"]) == [
        ("EXTRACTED_FROM", "session:abc"),
        ("WORKS_ON", "Person 03"),
    ]
    assert [(r["type"], r["other_name"]) for r in plan["dropped"]] == [("PACKAGED_AS", "Lumen")]

    merged = _json(curator_client, "post", "/api/graph/entities/merge", body).json()
    assert merged["applied"] is True
    assert merged["relationships_after"] == plan["relationships_after"]
    after = graph_store().entity_state("Project", "Lumen")
    seen = sorted(
        (r.type, "out" if r.outgoing else "in", r.other.label, r.other.key) for r in after.rels
    )
    assert seen == sorted(
        (r["type"], r["direction"], r["other_label"], r["other_name"])
        for r in plan["relationships_after"]
    )
    assert not graph_store().get_entities("Software", "Lumen")
    assert after.props["aliases"] == ["lumen-rag", "lumen-pkg"]
    assert after.props["mention_count"] == 45
    assert after.props["first_seen"].iso_format() == "2026-01-01T00:00:00.000000001+00:00"
    works_on = next(r for r in after.rels if r.type == "WORKS_ON")
    assert works_on.props["mention_count"] == 4 and works_on.props["evidence"] == "pr"
    sources = {r.other.key for r in after.rels if r.type == "EXTRACTED_FROM"}
    assert sources == {"session:abc", "sha256:f1"}


def test_undoing_a_merge_restores_the_graph_exactly(curator_client, two_lumens):
    before = graph_dump()
    body = {
        "source": {"label": "Software", "name": "Lumen"},
        "target": {"label": "Project", "name": "Lumen"},
        "description": "Lumen, the service and its package",
    }
    merged = _json(curator_client, "post", "/api/graph/entities/merge", body).json()
    assert graph_dump() != before
    undo = _undo(curator_client, merged["audit_id"])
    assert undo.status_code == 200, undo.content
    assert graph_dump() == before


def test_a_merge_is_refused_when_the_agent_wrote_in_between(curator_client, two_lumens):
    """The plan is re-checked inside the write transaction."""
    from graph_app.knowledge.errors import EntityChanged
    from graph_app.knowledge.merging import plan_entity_merge

    store = graph_store()
    plan = plan_entity_merge(
        store.entity_state("Software", "Lumen"), store.entity_state("Project", "Lumen")
    )
    run_cypher("MATCH (n:Software {name: 'Lumen'}) SET n.mention_count = 6")
    before = graph_dump()
    with pytest.raises(EntityChanged):
        store.apply_merge(plan)
    assert graph_dump() == before


def test_undo_of_a_merge_is_refused_once_the_survivor_changed(curator_client, two_lumens):
    body = {
        "source": {"label": "Software", "name": "Lumen"},
        "target": {"label": "Project", "name": "Lumen"},
    }
    merged = _json(curator_client, "post", "/api/graph/entities/merge", body).json()
    run_cypher("MATCH (n:Project {name: 'Lumen'}) SET n.mention_count = 99")
    undo = _undo(curator_client, merged["audit_id"])
    assert undo.status_code == 409 and "changed since" in undo.json()["error"]["message"]


def test_the_delete_preview_names_what_goes_and_who_is_left_orphaned(curator_client, graph):
    url = "/api/graph/entities/Project/Lumen"
    preview = curator_client.delete(url + "?dry_run=true").json()
    assert preview["applied"] is False and graph_store().get_entities("Project", "Lumen")
    assert sorted((r["type"], r["other_name"]) for r in preview["relationships"]) == [
        ("USES", "MongoDB"),
        ("WORKS_ON", "Person 03"),
    ]
    assert preview["provenance"] == 2
    assert preview["orphaned"] == [
        {"label": "Person", "name": "Person 03"},
        {"label": "Software", "name": "MongoDB"},
    ]
    orphans_before = {o["name"] for o in curator_client.get("/api/graph/orphans").json()}
    before = graph_dump()
    done = curator_client.delete(url).json()
    assert done["applied"] is True and not graph_store().get_entities("Project", "Lumen")
    orphans_after = {o["name"] for o in curator_client.get("/api/graph/orphans").json()}
    assert orphans_after - orphans_before == {"Person 03", "MongoDB"}
    assert _undo(curator_client, done["audit_id"]).status_code == 200
    assert graph_dump() == before


def test_a_relationship_is_edited_retyped_and_put_back(curator_client, graph):
    before = graph_dump()
    ends = {
        "start": {"label": "Project", "name": "Lumen"},
        "end": {"label": "Software", "name": "MongoDB"},
    }
    edited = _json(
        curator_client,
        "patch",
        "/api/graph/relationships",
        {
            **ends,
            "type": "USES",
            "new_type": "STORES_VECTORS_IN",
            "evidence": "",
            "confidence": 0.9,
        },
    )
    assert edited.status_code == 200, edited.content
    body = curator_client.get("/api/graph/entities/Project/Lumen").json()
    assert [(r["type"], r["props"]) for r in body["outgoing"]] == [
        ("STORES_VECTORS_IN", {"mention_count": 3, "confidence": 0.9})
    ]
    assert _undo(curator_client, edited.json()["audit_id"]).status_code == 200
    assert graph_dump() == before


def test_a_deleted_relationship_comes_back_with_undo(curator_client, graph):
    before = graph_dump()
    query = "start_label=Person&start_name=Person 03&type=WORKS_ON&end_label=Project&end_name=Lumen"
    deleted = curator_client.delete(f"/api/graph/relationships?{query}")
    assert deleted.status_code == 200
    assert curator_client.get("/api/graph/entities/Project/Lumen").json()["incoming"] == []
    assert curator_client.delete(f"/api/graph/relationships?{query}").status_code == 404
    assert _undo(curator_client, deleted.json()["audit_id"]).status_code == 200
    assert graph_dump() == before


@pytest.mark.parametrize(
    ("method", "url", "body", "field"),
    [
        (
            "patch",
            "/api/graph/entities/Project%60%29%20DETACH%20DELETE%20n/Lumen",
            {"description": "x"},
            "label",
        ),
        ("patch", "/api/graph/entities/Project/Lumen", {"name": "  "}, "new_name"),
        (
            "patch",
            "/api/graph/relationships",
            {
                "start": {"label": "Project", "name": "Lumen"},
                "type": "USES",
                "end": {"label": "Software", "name": "MongoDB"},
                "new_type": "X]->() DETACH DELETE n //",
            },
            "new_type",
        ),
        (
            "post",
            "/api/graph/entities/merge",
            {
                "source": {"label": "Project", "name": "Lumen"},
                "target": {"label": "Project", "name": "Lumen"},
            },
            "target",
        ),
    ],
)
def test_hostile_or_bad_input_is_refused_naming_the_field(
    curator_client, graph, method, url, body, field
):
    before = graph_dump()
    response = _json(curator_client, method, url, body)
    assert response.status_code == 400, response.content
    assert response.json()["error"]["field"] == field
    assert graph_dump() == before


def test_a_hostile_name_is_plain_data_through_rename_and_delete(curator_client, graph):
    graph_store().merge_entities("Concept", [{"name": HOSTILE, "props": {"description": "x"}}])
    renamed = _json(
        curator_client,
        "patch",
        f"/api/graph/entities/Concept/{quote(HOSTILE)}",
        {"name": HOSTILE + "2"},
    )
    assert renamed.status_code == 200 and renamed.json()["aliases"] == [HOSTILE]
    assert graph_store().count_entities() == 29
    deleted = curator_client.delete(f"/api/graph/entities/Concept/{quote(HOSTILE + '2')}")
    assert deleted.status_code == 200 and graph_store().count_entities() == 28


def test_curation_needs_the_curator_role(viewer_client, graph):
    before = graph_dump()
    response = _json(
        viewer_client, "patch", "/api/graph/entities/Project/Lumen", {"description": "x"}
    )
    assert response.status_code == 403
    assert viewer_client.delete("/api/graph/entities/Project/Lumen").status_code == 403
    assert graph_dump() == before


def test_a_name_alone_says_when_it_is_ambiguous(viewer_client, graph):
    ambiguous = viewer_client.get("/api/graph/lookup?name=Lumen")
    assert ambiguous.status_code == 409
    assert ambiguous.json()["error"]["labels"] == ["Project", "Software"]
    assert viewer_client.get("/api/graph/lookup?name=MongoDB").json() == {
        "label": "Software",
        "name": "MongoDB",
    }
    assert viewer_client.get("/api/graph/lookup?name=Nobody").status_code == 404
