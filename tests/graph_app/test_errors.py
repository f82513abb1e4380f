"""Errors are classified once, in the graph store: a Neo4j that cannot be reached is an
outage (GraphUnavailable: 503, the banner), a query Neo4j refuses is a bug
(GraphStoreError: 500 with the JSON error shape, the traceback logged), never a 503."""

from __future__ import annotations

import logging
import socket
import time
from collections.abc import Iterator

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from neo4j import GraphDatabase
from neo4j.exceptions import (
    AuthError,
    ClientError,
    ConstraintError,
    CypherSyntaxError,
    DatabaseUnavailable,
    ResultConsumedError,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)

from graph_app.knowledge import GraphStore, GraphStoreError, GraphUnavailable, cypher, cypher_writes
from graph_app.knowledge.errors import is_outage
from graph_app.stores import graph_store
from tests.graph_app.conftest import graph_dump, run_cypher
from tests.services import free_port


def _bound() -> float:
    """How long a request may take to give up on an unreachable Neo4j: the driver's
    connection acquisition timeout (``qqweb.lib.clients``), plus slack for a busy machine."""
    return max(settings.QQ_STORE_TIMEOUT_MS / 1000, 5.0) + 3.0


@pytest.fixture
def hung_port() -> Iterator[int]:
    """A port that accepts TCP connections and never says a word (a hung server)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        yield int(sock.getsockname()[1])


# --- the classification ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "error",
    [
        ServiceUnavailable("no route"),
        SessionExpired("gone"),
        ConnectionRefusedError(111, "refused"),
        TransientError("not now"),
        DatabaseUnavailable("starting"),
        AuthError("wrong password"),
        ClientError("failed to obtain a connection from the pool within 5.0s (timeout)"),
    ],
)
def test_unreachable_or_not_now_is_an_outage(error):
    assert is_outage(error)


@pytest.mark.parametrize(
    "error",
    [
        CypherSyntaxError("bad"),
        ClientError("bad argument"),
        ConstraintError("taken"),
        ResultConsumedError(None, "consumed"),
        KeyError("a bug of ours"),
    ],
)
def test_anything_else_is_a_bug(error):
    assert not is_outage(error)


# --- against the real Neo4j ---------------------------------------------------------------


def test_a_query_neo4j_refuses_is_a_store_error_not_an_outage(graph):
    store = graph_store()
    with pytest.raises(GraphStoreError) as negative_limit:
        store.orphans(limit=-1)
    assert negative_limit.value.code == "Neo.ClientError.Statement.ArgumentError"
    assert isinstance(negative_limit.value.__cause__, ClientError)
    with pytest.raises(GraphStoreError) as syntax:
        store.curate(lambda tx: tx.run("MATCH (n RETURN n").consume())
    assert syntax.value.code == "Neo.ClientError.Statement.SyntaxError"
    assert not isinstance(syntax.value, GraphUnavailable)


def test_a_constraint_violation_is_a_store_error_and_writes_nothing(graph):
    run_cypher(
        "CREATE CONSTRAINT qqweb_test_unique IF NOT EXISTS FOR (n:Project) REQUIRE n.name IS UNIQUE"
    )
    try:
        store = graph_store()
        lumen = store.entity_state("Project", "Lumen")
        before = graph_dump()
        with pytest.raises(GraphStoreError) as violation:
            store.restore_entities(recreate=[lumen])  # a second Project named Lumen
        assert violation.value.code.startswith("Neo.ClientError.Schema.Constraint")
        assert graph_dump() == before
    finally:
        run_cypher("DROP CONSTRAINT qqweb_test_unique IF EXISTS")


def test_a_store_on_a_closed_port_is_unavailable_at_once(stores):
    driver = GraphDatabase.driver(
        f"bolt://127.0.0.1:{free_port()}", auth=None, max_transaction_retry_time=0
    )
    store = GraphStore(driver)
    try:
        started = time.monotonic()
        with pytest.raises(GraphUnavailable) as reads:
            store.count_entities()
        with pytest.raises(GraphUnavailable):
            store.entity_state("Project", "Lumen")  # the curation path (a write session)
        assert time.monotonic() - started < _bound()
        assert isinstance(reads.value.__cause__, ServiceUnavailable)
    finally:
        driver.close()


def test_a_hung_neo4j_is_a_503_within_the_timeout(viewer_client, stores, settings, hung_port):
    settings.NEO4J_URI = f"bolt://127.0.0.1:{hung_port}"
    started = time.monotonic()
    response = viewer_client.get("/api/graph/entities")
    assert time.monotonic() - started < _bound()
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "store_unavailable"


def test_a_closed_port_gives_the_api_a_503_and_the_pages_the_banner(
    viewer_client, stores, settings
):
    settings.NEO4J_URI = f"bolt://127.0.0.1:{free_port()}"
    response = viewer_client.get("/api/graph/stats")
    assert response.status_code == 503
    assert response.json()["error"] == {
        "code": "store_unavailable",
        "message": response.json()["error"]["message"],
        "store": "neo4j",
    }
    page = viewer_client.get(reverse("graph_app:index"))
    assert page.status_code == 200 and "not reachable" in page.content.decode()


# --- what the front doors answer for a bug ---------------------------------------------------


def test_a_failing_query_is_a_500_with_the_json_error_and_a_logged_traceback(
    viewer_client, graph, monkeypatch, caplog
):
    monkeypatch.setattr(cypher, "COUNT_ORPHANS", "RETURN 1/0 AS n")  # a bug in a query
    with caplog.at_level(logging.ERROR, logger="qqweb.api"):
        response = viewer_client.get("/api/graph/stats")
    assert response.status_code == 500
    error = response.json()["error"]
    assert error["code"] == "internal" and "ArithmeticError" in error["message"]
    logged = [r for r in caplog.records if r.name == "qqweb.api"]
    assert logged and logged[0].exc_info is not None
    assert isinstance(logged[0].exc_info[1], GraphStoreError)


def test_a_failing_query_is_a_500_page(viewer, graph, monkeypatch):
    monkeypatch.setattr(cypher, "COUNT_ORPHANS", "RETURN 1/0 AS n")
    client = Client(raise_request_exception=False)
    client.force_login(viewer)
    assert client.get(reverse("graph_app:index")).status_code == 500


def test_a_bug_in_a_curation_query_is_a_500_not_a_refusal_message(curator, graph, monkeypatch):
    monkeypatch.setattr(cypher_writes, "NODES_NAMED", "MATCH (n RETURN n")
    client = Client(raise_request_exception=False)
    client.force_login(curator)
    before = graph_dump()
    response = client.post(
        reverse("graph_app:edit", args=["Project", "Lumen"]), {"description": "x"}
    )
    assert response.status_code == 500
    assert graph_dump() == before


@pytest.mark.parametrize("page", ["graph_app:duplicates", "graph_app:orphans"])
def test_a_closed_port_gives_the_duplicates_page_the_outage_page_like_the_others(
    page, viewer_client, stores, settings
):
    settings.NEO4J_URI = f"bolt://127.0.0.1:{free_port()}"
    response = viewer_client.get(reverse(page))
    assert response.status_code == 503
    shown = response.content.decode()
    assert 'id="store-down"' in shown
    assert "The knowledge graph (Neo4j) is not reachable</strong>" in shown
    assert "No candidates" not in shown
