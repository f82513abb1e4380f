import pytest

from graph_app.stores import graph_store
from qqweb.lib.clients import neo4j_driver

pytestmark = pytest.mark.usefixtures("neo4j")


def test_the_launcher_serves_neo4j_community_5_26_over_bolt():
    records, _, _ = neo4j_driver().execute_query("CALL dbms.components()")
    component = records[0]
    assert component["edition"] == "community"
    assert component["versions"][0].startswith("5.26.")


def test_the_launcher_answers_cypher_with_parameters():
    records, _, _ = neo4j_driver().execute_query(
        "CREATE (p:Person {name: $name}) RETURN p.name AS name", name="Ada"
    )
    assert records[0]["name"] == "Ada"
    assert graph_store().count_by_label() == {"Person": 1}
