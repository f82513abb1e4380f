"""The neighbourhood view: capped, most mentioned first, expandable, provenance apart."""

from __future__ import annotations

import json
import re

from django.urls import reverse

from graph_app.stores import graph_store


def test_the_neighbourhood_has_the_entity_its_neighbours_and_its_provenance(viewer_client, graph):
    body = viewer_client.get("/api/graph/entities/Project/Lumen/neighbourhood").json()
    entities = {(n["label"], n["name"]) for n in body["nodes"] if n["kind"] == "entity"}
    assert entities == {("Project", "Lumen"), ("Software", "MongoDB"), ("Person", "Person 03")}
    sources = [n for n in body["nodes"] if n["kind"] == "source"]
    assert [s["name"] for s in sources] == ["session:abc"]
    by_id = {n["id"]: n["name"] for n in body["nodes"]}
    assert sorted((by_id[e["source"]], e["type"], by_id[e["target"]]) for e in body["edges"]) == [
        ("Lumen", "EXTRACTED_FROM", "session:abc"),
        ("Lumen", "USES", "MongoDB"),
        ("Person 03", "WORKS_ON", "Lumen"),
    ]
    assert body["total_neighbours"] == body["shown_neighbours"] == 2


def test_depth_two_reaches_the_neighbours_of_neighbours(viewer_client, graph):
    graph_store().merge_relationships(
        "Person", "KNOWS", "Person", [{"a": "Person 03", "b": "Person 07", "props": {}}]
    )
    one = viewer_client.get("/api/graph/entities/Project/Lumen/neighbourhood?depth=1").json()
    two = viewer_client.get("/api/graph/entities/Project/Lumen/neighbourhood?depth=2").json()
    assert "Person 07" not in {n["name"] for n in one["nodes"]}
    assert {n["name"]: n["level"] for n in two["nodes"]}["Person 07"] == 2


def test_a_hub_with_5000_neighbours_is_capped_most_mentioned_first(viewer_client, stores):
    store = graph_store()
    store.merge_entities("Topic", [{"name": "hub", "props": {"mention_count": 1}}])
    store.merge_entities(
        "Concept",
        [{"name": f"c{i:04d}", "props": {"mention_count": i}} for i in range(5000)],
    )
    store.merge_relationships(
        "Topic",
        "MENTIONS",
        "Concept",
        [{"a": "hub", "b": f"c{i:04d}", "props": {}} for i in range(5000)],
    )
    body = viewer_client.get("/api/graph/entities/Topic/hub/neighbourhood?limit=50").json()
    names = [n["name"] for n in body["nodes"] if n["level"] == 1]
    assert names == [f"c{i:04d}" for i in range(4999, 4949, -1)]
    assert body["total_neighbours"] == 5000 and len(body["edges"]) == 50
    center = next(n for n in body["nodes"] if n["level"] == 0)
    assert center["degree"] == 5000
    more = viewer_client.get(
        "/api/graph/entities/Topic/hub/neighbourhood?limit=50&offset=50"
    ).json()
    assert next(n["name"] for n in more["nodes"] if n["level"] == 1) == "c4949"


def test_bad_neighbourhood_parameters_are_refused(viewer_client, graph):
    for query, field in [("depth=3", "depth"), ("limit=0", "limit"), ("limit=5000", "limit")]:
        response = viewer_client.get(f"/api/graph/entities/Project/Lumen/neighbourhood?{query}")
        assert response.status_code == 422
        assert response.json()["error"]["fields"] == [field]


def test_the_page_embeds_the_graph_as_escaped_json_and_the_vendored_library(viewer_client, stores):
    hostile = "</script><script>alert(1)</script>"
    graph_store().merge_entities(
        "Concept", [{"name": "calm", "props": {}}, {"name": hostile, "props": {}}]
    )
    graph_store().merge_relationships(
        "Concept", "RELATES_TO", "Concept", [{"a": "calm", "b": hostile, "props": {}}]
    )
    page = viewer_client.get(reverse("graph_app:neighbourhood", args=["Concept", "calm"]))
    html = page.content.decode()
    assert page.status_code == 200
    assert "<script>alert(1)" not in html
    embedded = re.search(
        r'<script id="graph-data" type="application/json">(.*?)</script>', html, re.S
    )
    assert embedded is not None
    assert hostile in {n["name"] for n in json.loads(embedded.group(1))["nodes"]}
    assert "/static/vendor/cytoscape.min.js" in html
    assert viewer_client.get("/static/vendor/cytoscape.min.js").status_code == 200
