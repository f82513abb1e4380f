from django.core.management import call_command

from graph_app.stores import graph_store
from memory_app.notes.stores import notes_store
from tests.services import free_port


def test_overview_endpoint_returns_counts_from_the_stores(viewer_client, stores):
    call_command("seed_demo")
    body = viewer_client.get("/api/overview").json()
    assert body["notes_total"] == notes_store().count()
    assert {
        row["name"]: row["count"] for row in body["notes_by_section"]
    } == notes_store().count_by_section()
    assert body["archive"]["total"] >= 40
    assert body["errors"] == {}


def test_graph_stats_endpoint_counts_labels_and_types(viewer_client, stores):
    call_command("seed_demo")
    body = viewer_client.get("/api/graph/stats").json()
    assert {row["name"]: row["count"] for row in body["by_label"]} == graph_store().count_by_label()
    assert body["relationships"] == sum(graph_store().count_by_relationship_type().values())


def test_graph_stats_is_a_503_json_error_when_neo4j_is_down(viewer_client, settings):
    settings.NEO4J_URI = f"bolt://127.0.0.1:{free_port()}"
    settings.QQ_STORE_TIMEOUT_MS = 300
    response = viewer_client.get("/api/graph/stats")
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "store_unavailable"
    assert response.json()["error"]["store"] == "neo4j"


def test_openapi_schema_documents_the_routes(viewer_client):
    schema = viewer_client.get("/api/openapi.json").json()
    assert {"/api/overview", "/api/graph/stats", "/api/me"} <= set(schema["paths"])
