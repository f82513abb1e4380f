"""Graph curation in the browser: rename an entity, then its old URL."""

import os
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from graph_app.stores import graph_store
from tests.browser.conftest import PHONE
from tests.browser.words import shot
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


CREATED = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _lumen_and_friends() -> None:
    """Lumen: three relationships with people, two provenance sources, a creation date as
    the agent stores it (a Neo4j DateTime); Lumen RAG, a copy to merge into it."""
    store = graph_store()
    for name, mentions in (("Lumen", 4), ("Lumen RAG", 1)):
        text = f"{name}: a retrieval service"
        props = {"description": "a retrieval service", "mention_count": mentions}
        props |= {"created_at": CREATED, "embedding": vector(text)}
        store.merge_entities("Project", [{"name": name, "props": props}])
    people = [{"name": n, "props": {"mention_count": 1}} for n in ("Priya", "Omar", "Dana")]
    store.merge_entities("Person", people)
    store.merge_relationships(
        "Person",
        "WORKS_ON",
        "Project",
        [{"a": p["name"], "b": "Lumen", "props": {}} for p in people],
    )
    for i in (1, 2):
        store.link_source(("Project", "Lumen"), f"conv-{i}", {"source_type": "conversation"})


def test_the_rename_preview_counts_the_relationships_the_page_lists_and_dates_read_as_dates(
    page: Page, sign_in: Any, curator: Any
) -> None:
    _lumen_and_friends()
    sign_in(curator)
    page.goto("/graph/entities/Project/Lumen/")
    listed = page.locator("main section").filter(has_text="Incoming").locator("ul > li")
    expect(listed).to_have_count(3)
    expect(page.locator("main")).to_contain_text("Created at1 Mar 2026, 12:00 UTC")
    page.locator("#entity-edit").get_by_label("Name").fill("Lumen Search")
    page.locator("#entity-edit").get_by_role("button", name="Preview…").click()
    after = page.locator("dl.facts")
    expect(after).to_contain_text("Relationships3, all kept")
    expect(after).to_contain_text("Provenancethe 2 sources that mention it, kept")
    _screenshot(page, "graph-rename-preview")

    page.goto("/graph/entities/Project/Lumen/")
    merge = page.locator("#entity-merge")
    merge.get_by_label("Name").fill("Lumen RAG")
    merge.get_by_role("button", name="Preview the merge…").click()
    afterwards = page.locator("section").filter(has_text="Lumen afterwards")
    expect(afterwards).to_contain_text("Created at1 Mar 2026, 12:00 UTC")
    assert "T12:00:00" not in afterwards.inner_text()  # not the driver's ISO string
    _screenshot(page, "graph-merge-preview")


def test_the_neighbourhood_at_depth_2_loads_without_warnings_and_its_labels_do_not_overlap(
    page: Page, sign_in: Any, viewer: Any
) -> None:
    store = graph_store()
    store.merge_entities("Project", [{"name": "Lumen", "props": {"mention_count": 9}}])
    hubs = [f"Service {i}" for i in range(10)]
    store.merge_entities("Software", [{"name": h, "props": {"mention_count": 3}} for h in hubs])
    store.merge_relationships(
        "Project", "USES", "Software", [{"a": "Lumen", "b": h, "props": {}} for h in hubs]
    )
    leaves = [(h, f"{h} component {j}") for h in hubs for j in range(4)]
    store.merge_entities("Topic", [{"name": leaf, "props": {}} for _, leaf in leaves])
    store.merge_relationships(
        "Software", "HAS", "Topic", [{"a": h, "b": leaf, "props": {}} for h, leaf in leaves]
    )
    said: list[str] = []
    page.on("console", lambda m: said.append(f"{m.type}: {m.text}"))
    sign_in(viewer)
    page.goto("/graph/entities/Project/Lumen/neighbourhood/?depth=2&limit=120")
    expect(page.locator("#graph-legend li")).to_have_count(3)
    page.wait_for_function("window.qqGraph && window.qqGraph.nodes().length === 51")
    _screenshot(page, "graph-depth-2")
    overlaps = page.evaluate(
        """() => {
            const boxes = qqGraph.nodes().map(n => n.renderedBoundingBox({includeLabels: true}));
            let n = 0;
            for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
                const a = boxes[i], b = boxes[j];
                if (a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2) n++;
            }
            return n;
        }"""
    )
    assert overlaps == 0
    assert [s for s in said if s.startswith(("warning", "error"))] == []


def _screenshot(page: Page, name: str) -> None:
    folder = os.environ.get("QQ_TEST_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)


def _hold_next_submit(page: Page) -> None:
    """Keep the next form submitted on the page. busy.js, a deferred script, must have
    registered its listener first (it ignores a submit already prevented), so this waits
    for the document's DOMContentLoaded, which runs after the deferred scripts."""
    page.wait_for_load_state("domcontentloaded")
    page.evaluate(
        """() => document.addEventListener(
          "submit", event => event.preventDefault(), {once: true})"""
    )


def test_a_slow_rename_and_its_undo_say_what_they_do_and_for_how_long(
    page: Page, sign_in: Any, curator: Any, page_watch: Any
) -> None:
    """Each form is held in the page for seconds before it is sent (as a cold model or a
    large entity holds the request): the button counts the seconds and a line says what
    is happening; then it is sent, and does what it said."""
    graph_store().merge_entities(
        "Project",
        [{"name": "Lumen", "props": {"description": "a retrieval service", "mention_count": 4}}],
    )
    sign_in(curator)
    page.goto("/graph/entities/Project/Lumen/")
    edit = page.locator("#entity-edit")
    edit.get_by_label("Name").fill("Lumen RAG")
    edit.get_by_role("button", name="Preview…").click()
    expect(page.get_by_role("heading", name="Rename Project Lumen to Lumen RAG")).to_be_visible()
    _hold_next_submit(page)  # busy.js sees the submit; the page does not leave yet
    page.get_by_role("button", name="Save").click()
    busy = page.locator("form[data-busy] button[aria-busy=true]")
    # the seconds count up while it waits (a loaded machine may skip a second's paint)
    expect(busy).to_have_text(re.compile(r"^Renaming… \([2-9] s\)$"), timeout=10_000)
    expect(page.locator(".busy-line")).to_contain_text("re-embedding it")
    shot(page, "graph-rename-busy-1280", full_page=False)
    page.locator("form[data-busy]").evaluate("form => form.submit()")
    expect(page.locator("[data-message=success]")).to_contain_text("Saved and re-embedded.")

    page.set_viewport_size(PHONE)  # type: ignore[arg-type]
    _hold_next_submit(page)
    page.locator("#message-undo").click()
    expect(page.locator("#message-undo")).to_have_text(
        re.compile(r"^Undoing… \([1-9] s\)$"), timeout=10_000
    )
    expect(page.locator(".undo-form .busy-line")).to_have_text("Putting back what it changed.")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width} px wide at 390 px"
    shot(page, "graph-undo-busy-390", full_page=False)
    # The undo goes back to the page it was pressed on, the renamed entity's, which the
    # undo took away: that name leads to the entity's name again, saying so.
    page.locator(".undo-form").evaluate("form => form.submit()")
    expect(page.locator("[data-message=success]")).to_contain_text("Undone.")
    expect(page).to_have_url(re.compile(r"/graph/entities/Project/Lumen/$"))
    expect(page.locator("#messages")).to_contain_text("“Lumen RAG” was renamed back to “Lumen”.")
    assert graph_store().entity_state("Project", "Lumen") is not None
