"""The entities list says which entities of how many it shows (Neo4j's counts, no scan);
a name search shows no total."""

import re

from django.urls import reverse

from tests.graph_app.conftest import run_cypher


def position(html):
    return re.search(r'class="list-position"[^>]*>([^<]*)<', html).group(1)


def test_the_entities_list_says_where_the_page_is(viewer_client, neo4j, db):
    run_cypher(
        "UNWIND range(1, 55) AS i CREATE (:Topic {name: 'topic ' + toString(i), mention_count: i})"
    )
    run_cypher("CREATE (:Person {name: 'Dana', mention_count: 1})")
    url = reverse("graph_app:entities")
    first = viewer_client.get(url).content.decode()
    assert position(first) == "1-50 of 56"
    next_link = re.search(r'href="\?([^"]*cursor=[^"]+)"', first).group(1).replace("&amp;", "&")
    assert "pos=50" in next_link
    second = viewer_client.get(url + "?" + next_link).content.decode()
    assert position(second) == "51-56 of 56"
    assert position(viewer_client.get(url + "?label=Person").content.decode()) == "1-1 of 1"
    assert position(viewer_client.get(url + "?q=topic").content.decode()) == "1-50"
