"""The graph's counts link to what they count: the index's entities per label and
relationships per type (and their totals) open the filtered lists, which say the same
count and list exactly those; an entity's relationship counts open their sections."""

from __future__ import annotations

import re

from django.urls import reverse

from graph_app.selectors import relationships_page
from graph_app.stores import graph_store
from tests.page_links import count_link, href_of, links, list_total


def _rows(html: str, table: str) -> int:
    body = html[html.index(f'id="{table}"') :]
    return body[: body.index("</tbody>")].count("<tr><td>")


def test_the_index_counts_open_the_entities_and_relationships_they_count(viewer_client, graph):
    store = graph_store()
    store.merge_relationships(
        "Person",
        "WORKS_ON",
        "Project",
        [{"a": f"Person {i:02d}", "b": "Lumen", "props": {}} for i in (4, 5)],
    )
    html = viewer_client.get(reverse("graph_app:index")).content.decode()
    by_type = store.count_by_relationship_type()
    assert by_type == {"WORKS_ON": 3, "USES": 1}
    for rel_type, count in by_type.items():
        href = count_link(html, rel_type, count, within="graph-by-type")
        listed = viewer_client.get(href).content.decode()
        assert list_total(listed) == count
        assert _rows(listed, "relationships-table") == count
        assert listed.count(f"<code>{rel_type}</code>") == count + 1  # and the heading
    every = viewer_client.get(href_of(html, "4", within="graph-by-type")).content.decode()
    assert list_total(every) == 4 and _rows(every, "relationships-table") == 4
    for label, count in store.count_by_label().items():
        href = count_link(html, label, count, within="graph-by-label")
        listed = viewer_client.get(href).content.decode()
        assert list_total(listed) == count
        assert _rows(listed, "entities-table") == count


def test_the_relationships_list_refuses_a_bad_type_with_a_400(viewer_client, graph):
    response = viewer_client.get(reverse("graph_app:relationships") + "?type=USES]->()--(x")
    assert response.status_code == 400
    assert "relationship type" in response.content.decode()


def test_the_relationships_list_pages_on_and_links_both_ends(viewer_client, graph):
    graph_store().merge_relationships(
        "Person",
        "KNOWS",
        "Person",
        [{"a": f"Person {i:02d}", "b": f"Person {i + 1:02d}", "props": {}} for i in range(12)],
    )
    first = relationships_page(rel_type="KNOWS", limit=5)
    assert len(first.items) == 5 and first.next_after
    rest = relationships_page(rel_type="KNOWS", cursor=first.next_after, limit=100)
    starts = sorted(r.start_name or "" for r in (*first.items, *rest.items))
    assert starts == [f"Person {i:02d}" for i in range(12)]
    page = viewer_client.get(reverse("graph_app:relationships") + "?type=KNOWS").content.decode()
    assert list_total(page) == 12 and _rows(page, "relationships-table") == 12
    entity = reverse("graph_app:entity", args=["Person", "Person 00"])
    assert href_of(page, "Person 00", within="relationships-table") == entity


def test_an_entity_relationship_counts_open_their_sections(viewer_client, graph):
    html = viewer_client.get(
        reverse("graph_app:entity", args=["Project", "Lumen"])
    ).content.decode()
    for section, count in (("outgoing", 1), ("incoming", 1), ("provenance", 1)):
        assert (str(count), f"#{section}") in links(html), section
        listed = html[html.index(f'id="{section}"') :]
        listed = listed[: listed.index("</section>")]
        items = re.findall(r"<li>", listed)
        assert len(items) == count, section
