"""The graph as the agent writes it (exactly, with raw Cypher, as the contract describes),
curated through qqweb's API and pages: provenance survives a merge edge for edge, and the
previews say what the agent does with the names a rename or a merge leaves behind."""

from __future__ import annotations

import json
from typing import Any

from django.urls import reverse

from graph_app.stores import graph_store
from qqweb.audit.models import AuditEvent
from tests.graph_app.conftest import graph_dump, run_cypher

MERGE_BODY = {
    "source": {"label": "Software", "name": "Lumen"},
    "target": {"label": "Project", "name": "Lumen"},
}


def _json(client: Any, method: str, url: str, body: dict[str, Any] | None = None) -> Any:
    return getattr(client, method)(url, json.dumps(body or {}), content_type="application/json")


def agent_evidences(label: str, name: str, source_id: str, rel_source: str, rel_type: str) -> None:
    """The agent's provenance write: EVIDENCES merged on both rel_source and rel_type."""
    run_cypher(
        f"""MERGE (s:Source {{source_id: $source_id}})
        WITH s MATCH (e:{label} {{name: $name}})
        MERGE (e)-[:EXTRACTED_FROM]->(s)
        MERGE (s)-[:EVIDENCES {{rel_source: $rel_source, rel_type: $rel_type}}]->(e)""",
        source_id=source_id,
        name=name,
        rel_source=rel_source,
        rel_type=rel_type,
    )


def evidences(label: str, name: str, source_id: str) -> list[tuple[str, str]]:
    rows = run_cypher(
        f"""MATCH (:Source {{source_id: $source_id}})-[r:EVIDENCES]->(:{label} {{name: $name}})
        RETURN r.rel_source AS rel_source, r.rel_type AS rel_type""",
        source_id=source_id,
        name=name,
    )
    return sorted((r["rel_source"], r["rel_type"]) for r in rows)


# 4. two EVIDENCES edges between the same Source and entity


def test_a_merge_keeps_every_evidences_edge_of_a_source(curator_client, graph):
    agent_evidences("Software", "Lumen", "session:xyz", "Lumen", "USES")
    agent_evidences("Software", "Lumen", "session:xyz", "Priya", "USES")
    agent_evidences("Project", "Lumen", "session:xyz", "Priya", "USES")  # the survivor's own
    assert evidences("Software", "Lumen", "session:xyz") == [("Lumen", "USES"), ("Priya", "USES")]
    before = graph_dump()

    merged = _json(curator_client, "post", "/api/graph/entities/merge", MERGE_BODY)
    assert merged.status_code == 200, merged.content

    # one edge per relationship evidenced: the Priya one combined with the survivor's
    assert evidences("Project", "Lumen", "session:xyz") == [("Lumen", "USES"), ("Priya", "USES")]
    undo = curator_client.post(f"/api/audit/{merged.json()['audit_id']}/undo")
    assert undo.status_code == 200 and graph_dump() == before


def test_our_provenance_writes_merge_evidences_on_both_keys_like_the_agent(graph):
    for rel_source in ("Lumen", "Priya", "Priya"):
        graph_store().link_source(
            ("Project", "Lumen"), "session:xyz", {}, rel_type="USES", rel_source=rel_source
        )
    assert evidences("Project", "Lumen", "session:xyz") == [("Lumen", "USES"), ("Priya", "USES")]


# what the agent does with names: said in the previews, and seen among duplicates


def test_the_rename_preview_says_the_agent_will_create_the_old_name_again(curator_client, graph):
    before = graph_dump()
    url = "/api/graph/entities/Project/Lumen?dry_run=true"
    preview = _json(curator_client, "patch", url, {"name": "Lumen RAG"})
    assert preview.status_code == 200, preview.content
    body = preview.json()
    assert (body["name"], body["aliases"], body["audit_id"]) == (
        "Lumen RAG",
        ["lumen-rag", "Lumen"],
        None,
    )
    never_reads, replaces = body["warnings"]
    assert (
        "never reads aliases" in never_reads
        and "meets “Lumen”, a new entity of that name is created" in never_reads
    )
    assert "replaces the whole alias list" in replaces
    assert graph_dump() == before and not AuditEvent.objects.exists()

    page = curator_client.get(
        reverse("graph_app:edit", args=["Project", "Lumen"]),
        {"name": "Lumen RAG", "description": "a retrieval service"},
    ).content.decode()
    assert "Rename" in page and "never reads aliases" in page and "lumen-rag, Lumen" in page
    assert graph_dump() == before

    taken = _json(
        curator_client,
        "patch",
        "/api/graph/entities/Person/Person 01?dry_run=true",
        {"name": "Person 02"},
    )
    assert taken.status_code == 409


def test_the_merge_preview_says_the_agent_will_create_the_merged_name_again(curator_client, graph):
    preview = _json(
        curator_client, "post", "/api/graph/entities/merge", {**MERGE_BODY, "dry_run": True}
    ).json()
    assert any("meets “Lumen”" in w and "never reads aliases" in w for w in preview["warnings"])
    page = curator_client.get(
        reverse("graph_app:merge"),
        {
            "source_label": "Software",
            "source_name": "Lumen",
            "target_label": "Project",
            "target_name": "Lumen",
        },
    ).content.decode()
    assert "replaces the whole alias list" in page


def test_an_entity_the_agent_re_created_after_a_rename_comes_first_marked_merged_before(
    curator_client, graph
):
    renamed = _json(
        curator_client, "patch", "/api/graph/entities/Project/Lumen", {"name": "Lumen RAG"}
    )
    assert renamed.status_code == 200
    # the agent meets "Lumen" again: its lookup by name finds nothing, so it creates one
    run_cypher("CREATE (:Project {name: 'Lumen', description: 'a RAG API', mention_count: 1})")

    first, *others = curator_client.get("/api/graph/duplicates").json()
    assert (first["a"]["name"], first["b"]["name"], first["reason"]) == (
        "Lumen RAG",
        "Lumen",
        "merged before",
    )
    assert first["a"]["label"] == first["b"]["label"] == "Project"
    assert "'Lumen' is an alias of 'Lumen RAG'" in first["note"]
    assert all(c["reason"] != "merged before" for c in others)

    page = curator_client.get(reverse("graph_app:duplicates")).content.decode()
    rows = page.split("<tbody>")[1]
    assert rows.index("merged before") < rows.index("same name")
    assert "is an alias of" in rows


# re-embedding an entity keeps its stored dimension, as the notes' does


def test_re_embedding_a_1024d_entity_with_the_384d_model_is_a_409(curator_client, graph):
    run_cypher("MATCH (n:Project {name: 'Lumen'}) SET n.embedding = $v", v=[0.1] * 1024)
    before = graph_dump()
    response = _json(
        curator_client, "patch", "/api/graph/entities/Project/Lumen", {"description": "a RAG API"}
    )
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "embedding_dimension_conflict"
    assert (error["stored_dimension"], error["model_dimension"]) == (1024, 384)
    assert graph_dump() == before and not AuditEvent.objects.exists()
