"""Names the agent may write, however odd: a line break, a slash, markup. Every page that
lists or links them answers, and shows them as text."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from graph_app.stores import graph_store

NEWLINE = "Ada\nLovelace"
MARKUP = "<img src=x onerror=alert(1)>"
SCRIPT_END = "</script><script>alert(2)</script>"


@pytest.fixture
def odd_graph(stores):
    store = graph_store()
    store.merge_entities(
        "Person",
        [
            {"name": NEWLINE, "props": {"description": f"wrote {MARKUP}", "mention_count": 9}},
            {"name": "Charles Babbage", "props": {"mention_count": 8}},
            {"name": MARKUP, "props": {"mention_count": 7, "aliases": [SCRIPT_END]}},
            {"name": SCRIPT_END, "props": {"mention_count": 6}},
        ],
    )
    store.merge_relationships(
        "Person",
        "KNOWS",
        "Person",
        [
            {"a": "Charles Babbage", "b": NEWLINE, "props": {"evidence": MARKUP}},
            {"a": "Charles Babbage", "b": MARKUP, "props": {}},
            {"a": "Charles Babbage", "b": SCRIPT_END, "props": {}},
        ],
    )
    return store


def pages(name: str) -> list[str]:
    return [
        reverse("graph_app:index"),
        reverse("graph_app:entities"),
        reverse("graph_app:entities") + "?sort=last_seen",
        reverse("graph_app:orphans"),
        reverse("graph_app:duplicates"),
        reverse("graph_app:entity", args=["Person", "Charles Babbage"]),
        reverse("graph_app:neighbourhood", args=["Person", "Charles Babbage"]),
        reverse("graph_app:entity", args=["Person", name]),
        reverse("graph_app:neighbourhood", args=["Person", name]),
    ]


def test_a_name_with_a_line_break_breaks_no_page(curator_client, odd_graph):
    for url in pages(NEWLINE):
        assert curator_client.get(url).status_code == 200, url
    for url in (
        reverse("graph_app:edit", args=["Person", NEWLINE]),
        reverse("graph_app:delete", args=["Person", NEWLINE]),
    ):
        assert curator_client.get(url).status_code == 200, url


def test_the_entity_page_of_a_name_with_a_line_break_is_that_entity(viewer_client, odd_graph):
    url = reverse("graph_app:entity", args=["Person", NEWLINE])
    assert "%0A" in url
    page = viewer_client.get(url).content.decode()
    assert "Ada\nLovelace" in page and "Charles Babbage" in page


def test_markup_in_names_aliases_and_evidence_is_shown_as_text(curator_client, odd_graph):
    for name in (MARKUP, SCRIPT_END):
        for url in pages(name):
            html = curator_client.get(url).content.decode()
            assert "<img src=x" not in html, url
            assert "<script>alert(2)" not in html, url


def test_the_neighbourhoods_embedded_json_holds_the_names_exactly(viewer_client, odd_graph):
    html = viewer_client.get(
        reverse("graph_app:neighbourhood", args=["Person", "Charles Babbage"])
    ).content.decode()
    embedded = re.search(
        r'<script id="graph-data" type="application/json">(.*?)</script>', html, re.S
    )
    assert embedded is not None
    names = {n["name"] for n in json.loads(embedded.group(1))["nodes"]}
    assert {NEWLINE, MARKUP, SCRIPT_END} <= names
