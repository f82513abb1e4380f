"""Graph curation in the browser: rename an entity, then its old URL."""

import re
from typing import Any

from playwright.sync_api import Page, expect

from graph_app.stores import graph_store
from tests.helpers import vector


def test_a_renamed_entity_is_reached_by_its_old_url(page: Page, sign_in: Any, curator: Any) -> None:
    graph_store().merge_entities(
        "Project",
        [
            {
                "name": "Lumen",
                "props": {
                    "description": "a retrieval service",
                    "mention_count": 4,
                    "embedding": vector("Lumen: a retrieval service"),
                },
            }
        ],
    )
    sign_in(curator)
    page.goto("/graph/entities/Project/Lumen/")
    edit = page.locator("#entity-edit")
    edit.get_by_label("Name").fill("Lumen RAG")
    edit.get_by_role("button", name="Preview…").click()
    expect(page.get_by_role("heading", name="Rename Project Lumen to Lumen RAG")).to_be_visible()
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_contain_text("Saved and re-embedded.")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Lumen RAG")

    page.goto("/graph/entities/Project/Lumen/")
    expect(page).to_have_url(re.compile(r"/graph/entities/Project/Lumen%20RAG/$"))
    expect(page.get_by_role("heading", level=1)).to_contain_text("Lumen RAG")


def test_merging_by_name_suggests_the_names_of_that_label(
    page: Page, sign_in: Any, curator: Any
) -> None:
    store = graph_store()
    store.merge_entities("Project", [{"name": "Lumen", "props": {"mention_count": 4}}])
    store.merge_entities(
        "Software",
        [
            {"name": "Lumen engine", "props": {"mention_count": 2}},
            {"name": "Lumen-cli", "props": {"mention_count": 1}},
            {"name": "Tidepool", "props": {"mention_count": 1}},
        ],
    )
    sign_in(curator)
    page.goto("/graph/entities/Project/Lumen/")
    merge = page.locator("#entity-merge")
    merge.get_by_label("Label").fill("Software")
    merge.get_by_label("Name").fill("lum")
    options = page.locator("#merge-names option")
    expect(options).to_have_count(2)
    assert sorted(options.evaluate_all("os => os.map(o => o.value)")) == [
        "Lumen engine",
        "Lumen-cli",
    ]


def test_the_neighbourhood_draws_each_label_in_its_own_colour(
    page: Page, sign_in: Any, viewer: Any
) -> None:
    store = graph_store()
    store.merge_entities("Project", [{"name": "Lumen", "props": {"mention_count": 4}}])
    store.merge_entities("Topic", [{"name": "vector search", "props": {"mention_count": 2}}])
    store.merge_entities("Person", [{"name": "Priya", "props": {"mention_count": 2}}])
    store.merge_relationships(
        "Project", "ABOUT", "Topic", [{"a": "Lumen", "b": "vector search", "props": {}}]
    )
    store.merge_relationships(
        "Person", "WORKS_ON", "Project", [{"a": "Priya", "b": "Lumen", "props": {}}]
    )
    sign_in(viewer)
    page.goto("/graph/entities/Project/Lumen/neighbourhood/")
    swatches = page.locator("#graph-legend .swatch")
    expect(swatches).to_have_count(3)
    colours = swatches.evaluate_all("els => els.map(e => getComputedStyle(e).backgroundColor)")
    assert len(set(colours)) == 3
