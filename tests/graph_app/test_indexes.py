"""Optional indexes: listed always, created only by the explicit command."""

from __future__ import annotations

from io import StringIO

from django.core.management import call_command

from graph_app.stores import graph_store
from tests.graph_app.conftest import run_cypher


def _our_indexes() -> set[str]:
    return {
        r["name"] for r in run_cypher("SHOW INDEXES YIELD name") if r["name"].startswith("qqweb_")
    }


def test_browsing_and_curating_never_create_an_index(viewer_client, graph):
    for name in _our_indexes():
        run_cypher(f"DROP INDEX {name}")
    viewer_client.get("/api/graph/entities")
    viewer_client.get("/api/graph/entities/Project/Lumen/neighbourhood")
    assert _our_indexes() == set()


def test_the_command_lists_then_creates_the_indexes(graph):
    for name in _our_indexes():
        run_cypher(f"DROP INDEX {name}")
    out = StringIO()
    call_command("graph_indexes", stdout=out)
    assert "missing  :Project(name)" in out.getvalue() and _our_indexes() == set()
    call_command("graph_indexes", "--create", stdout=StringIO())
    assert {"qqweb_Project_name", "qqweb_Person_name", "qqweb_source_id"} <= _our_indexes()
    assert all(i.exists for i in graph_store().suggested_indexes())
    graph_store().await_indexes(60)
    states = run_cypher("SHOW INDEXES YIELD name, state WHERE name STARTS WITH 'qqweb_'")
    assert {r["state"] for r in states} == {"ONLINE"}
    for name in _our_indexes():
        run_cypher(f"DROP INDEX {name}")
