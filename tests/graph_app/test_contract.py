"""The graph as the agent writes it (exactly, with raw Cypher, as the contract describes),
curated through qqweb's API and pages: provenance survives a merge edge for edge, and the
previews say what the agent does with the names a rename or a merge leaves behind."""

from __future__ import annotations

import json
from typing import Any

from graph_app.stores import graph_store
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
