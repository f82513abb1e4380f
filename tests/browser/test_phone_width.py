"""Every page of the dashboard at a phone's width (390 px), on the demo's data: no page
is wider than the screen (nothing to scroll sideways, no button off the edge), no text is
cut or squeezed (``CUT_TEXT``), and the header's menu opens every section. The pages with
dates, choices and charts read whole at 1280 px too. Screenshots go to
``QQ_TEST_SCREENSHOTS`` when set."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from graph_app.demo import graph_demo_seed
from memory_app.facts.demo import facts_demo_seed
from memory_app.facts.lib import FactsStore
from memory_app.notes.demo import notes_demo_seed
from memory_app.notes.lib.mongo_store import utcnow_naive
from memory_app.notes.services import duplicates_scan
from memory_app.notes.services.notes import note_archive, note_edit
from memory_app.notes.stores import notes_store
from qqweb.jobs.runner import job_create, job_run_in_process
from qqweb.jobs.runs import run_create
from qqweb.lib.actors import Actor
from qqweb.recall.services import pin_create
from tests.browser.conftest import PHONE, VIEWPORT
from tests.helpers import EMBEDDER, plant_note, vector
from tests.memory_app.facts.conftest import facts_store

__all__ = ["facts_store"]  # the facts tests' fixture: a fresh facts collection
DEADLINE = "Deadline for the Lumen beta is "

MERGE_PREVIEW = (  # two Lumens of the demo: a Software and a Project
    "/graph/merge/?source_label=Software&source_name=Lumen&target_label=Project&target_name=Lumen"
)
# Every page a user reaches from the header or a list; {note}, {fact}, {run} and
# {entity} are filled in from the demo's data.
PAGES = (
    "/",
    "/notes/",
    "/notes/?q=deploy",
    "/notes/{note}/",
    "/notes/new/",
    "/search/?q=which+port+does+the+service+use",
    "/retrieval/",
    "/memory-tests/",
    "/review/",
    "/archive/",
    "/core/",
    "/graph/",
    "/graph/entities/",
    "/graph/entities/{entity}/",
    "/graph/entities/{entity}/neighbourhood/",
    "/graph/relationships/list/",
    "/graph/orphans/",
    "/graph/duplicates/",
    "/graph/search/?q=Oslo",
    MERGE_PREVIEW,
    "/facts/",
    "/facts/{fact}/",
    "/facts/new/",
    "/facts/next-start/",
    "/facts/lint/",
    "/facts/archive/",
    "/facts/contradictions/",
    "/facts/vanished/",
    "/maintenance/",
    "/maintenance/runs/{run}/",
    "/audit/",
    "/health/",
    "/backup/",
    "/tokens/",
)
# The pages with dates in tables, choices in forms and charts, at a desktop's width.
WIDE_PAGES = (
    "/",
    "/notes/",
    "/search/?q=deploy",
    "/archive/",
    "/core/",
    "/maintenance/",
    MERGE_PREVIEW,
)
# A table whose cells run past its card (a long source id, a type broken mid-word).
PAST_THE_CARD = """() => [...document.querySelectorAll('main .card table')]
    .filter(t => t.getBoundingClientRect().right
                 > t.closest('.card').getBoundingClientRect().right + 1)
    .map(t => (t.id ? '#' + t.id : 'a table') + ' runs past its card')"""

# What a reader finds cut or squeezed on the page shown, as sentences (none: all reads):
# a select narrower than its longest choice, a chart label under 11 px or over another
# one, a date (a ``.date``, a ``.when``, or a cell that is a date) broken over two lines, a table
# cell of four words or more shown a word a line, a box that scrolls sideways inside the
# page (a wide table's own scrollbar).
CUT_TEXT = r"""() => {
  const problems = [], shown = e => e.getClientRects().length > 0;
  const lineTops = element => {
    const tops = [], walk = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    while (walk.nextNode()) {
      if (!walk.currentNode.textContent.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(walk.currentNode);
      for (const r of range.getClientRects()) if (r.width > 0) tops.push(r.top);
    }
    tops.sort((a, b) => a - b);
    return tops.filter((t, i) => i === 0 || t - tops[i - 1] > 8).length;
  };
  for (const select of document.querySelectorAll('main select')) {
    if (!shown(select)) continue;
    const probe = select.cloneNode(true);
    probe.removeAttribute('id');
    probe.style.cssText = 'position:absolute; visibility:hidden; width:auto; '
      + 'min-width:0; max-width:none; flex:none';
    select.after(probe);
    const needs = probe.getBoundingClientRect().width;
    probe.remove();
    const has = select.getBoundingClientRect().width;
    if (has + 1 < needs) problems.push(`the select ${select.name || select.ariaLabel} is `
      + `${Math.round(has)} px wide, its longest choice needs ${Math.round(needs)} px`);
  }
  for (const chart of document.querySelectorAll('main svg.chart')) {
    const labels = [...chart.querySelectorAll('text')].filter(shown);
    for (const label of labels) {
      const px = parseFloat(getComputedStyle(label).fontSize) * label.getScreenCTM().a;
      if (px < 11) problems.push(`the chart label "${label.textContent}" is `
        + `${px.toFixed(1)} px tall`);
    }
    const boxes = labels.map(label => [label.textContent, label.getBoundingClientRect()]);
    boxes.forEach(([text, a], i) => boxes.slice(i + 1).forEach(([other, b]) => {
      if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom)
        problems.push(`the chart labels "${text}" and "${other}" overlap`);
    }));
  }
  const dates = [...document.querySelectorAll('main .date, main .when, main td')]
    .filter(e => e.matches('.date, .when')
      || /^\d{4}-\d\d-\d\d( \d\d:\d\d)?$/.test(e.innerText.trim()));
  for (const date of dates)
    if (shown(date) && lineTops(date) > 1)
      problems.push(`the date "${date.textContent.trim()}" is broken over two lines`);
  for (const cell of document.querySelectorAll('main td')) {
    const words = cell.innerText.split(/\s+/).filter(Boolean).length;
    if (shown(cell) && words >= 4 && lineTops(cell) >= words)
      problems.push(`"${cell.innerText.slice(0, 40)}" is shown a word a line`);
  }
  for (const box of document.querySelectorAll('main .scroll-x'))
    if (box.scrollWidth > box.clientWidth + 1)
      problems.push(`a ${box.firstElementChild.tagName.toLowerCase()}`
        + `${box.firstElementChild.id ? '#' + box.firstElementChild.id : ''} scrolls `
        + `sideways (${box.scrollWidth} px in ${box.clientWidth})`);
  return problems;
}"""


@pytest.fixture
def demo(facts_store: FactsStore, admin_user: Any) -> dict[str, str]:
    """The demo's notes, memory files, graph and facts, an edited and an archived note (the
    Audit log's rows) and a finished dry run (a run's page)."""
    notes_demo_seed(embedder=EMBEDDER)
    graph_demo_seed(embed=EMBEDDER.embed, reset=False, now=utcnow_naive())
    facts_demo_seed(embedder=EMBEDDER)
    actor = Actor("user", admin_user.get_username(), admin_user.pk, "admin")
    first, second = notes_store().collection.find({}, {"note_id": 1}).limit(2)
    note = notes_store().note(first["note_id"])
    assert note is not None
    note_edit(
        actor=actor,
        note_id=note.note_id,
        expected_updated_at=note.updated_at,
        content=note.content + " Checked again with the deployment runbook.",
    )
    note_archive(actor=actor, note_id=second["note_id"])
    run = job_create(kind="archival", actor=actor, dry_run=True)
    job_run_in_process(run=run)
    fact = facts_store.collection.find_one({"type": "fact"}, {"_id": 1})
    assert fact is not None
    pin_create(actor=actor, query="Who pairs with the user every week?", item_id=note.note_id)
    same = vector("Deadline for the Lumen beta")  # a pair for the Review page
    plant_note("note_deadline0001", 0.6, 30, embedding=same, content=DEADLINE + "2027-01-10")
    plant_note("note_deadline0002", 0.5, 2, embedding=same, content=DEADLINE + "2027-02-01")
    scan = run_create(kind="dedup_scan", actor=actor, params={})
    assert duplicates_scan(run=scan, threshold=0.99)["queued"] >= 1
    return {
        "note": note.note_id,
        "fact": str(fact["_id"]),
        "run": str(run.pk),
        "entity": "Location/Oslo",
    }


def test_no_page_is_wider_than_a_phone(
    page: Page, sign_in: Any, admin_user: Any, demo: dict[str, str]
) -> None:
    """Every page in one test, on one seeding of the demo (seeding it per page took most of
    the test's time); the failure names every page that is too wide, not only the first."""
    page.set_viewport_size(PHONE)  # type: ignore[arg-type]
    sign_in(admin_user)
    too_wide = []
    for path in PAGES:
        page.goto(path.format(**demo))
        expect(page.locator("main h1").first).to_be_visible()
        page.wait_for_load_state("networkidle")
        _screenshot(page, "phone" + re.sub(r"[^a-z0-9]+", "-", path.split("?")[0]).rstrip("-"))
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > PHONE["width"]:
            wider = page.evaluate(
                """() => [...document.querySelectorAll('main *')]
                    .filter(e => e.getBoundingClientRect().right > innerWidth + 1)
                    .filter(e => !e.closest('.scroll-x'))
                    .map(e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '')
                         + (e.className && typeof e.className == 'string'
                            ? '.' + e.className : ''))
                    .slice(0, 5)"""
            )
            too_wide.append(f"{path} is {width} px wide; past the edge: {wider}")
        too_wide += [f"{path}: {problem}" for problem in page.evaluate(CUT_TEXT)]
    assert not too_wide, "\n".join(too_wide)


def test_the_pages_name_what_holds_beside_and_below_at_both_widths(
    page: Page, sign_in: Any, admin_user: Any, demo: dict[str, str]
) -> None:
    """At 390 px the Review's two notes are stacked and the graph's panel is under the
    graph: the pages name them ("First note", "the Selected panel"), never by a side."""
    sign_in(admin_user)
    for size in (PHONE, VIEWPORT):
        page.set_viewport_size(size)  # type: ignore[arg-type]
        page.goto("/review/")
        sides = page.locator(".pair .side h2")
        expect(sides.nth(0)).to_contain_text("First note: note_deadline000")
        expect(sides.nth(1)).to_contain_text("Second note: note_deadline000")
        keep = page.locator("#verdict-form fieldset")
        expect(keep.get_by_label("the first note")).to_be_visible()
        expect(keep.get_by_label("the second note")).to_be_visible()
        expect(keep).not_to_contain_text("left")
        expect(keep).not_to_contain_text("right")
        _screenshot(page, f"review-{size['width']}")
        page.goto("/graph/entities/{entity}/neighbourhood/".format(**demo))
        expect(page.locator("#graph-status")).to_contain_text(
            "its page link is in the Selected panel"
        )
        expect(page.get_by_role("heading", name="Selected")).to_be_visible()


def test_dates_choices_and_charts_read_whole_at_a_desktops_width(
    page: Page, sign_in: Any, admin_user: Any, demo: dict[str, str]
) -> None:
    sign_in(admin_user)
    cut = []
    for path in WIDE_PAGES:
        page.goto(path)
        expect(page.locator("main h1").first).to_be_visible()
        page.wait_for_load_state("networkidle")
        _screenshot(page, "wide" + re.sub(r"[^a-z0-9]+", "-", path.split("?")[0]).rstrip("-"))
        cut += [f"{path}: {problem}" for problem in page.evaluate(CUT_TEXT)]
        cut += [f"{path}: {problem}" for problem in page.evaluate(PAST_THE_CARD)]
    assert not cut, "\n".join(cut)


def test_the_menu_opens_every_section_at_phone_width(
    page: Page, sign_in: Any, admin_user: Any, facts_store: FactsStore
) -> None:
    page.set_viewport_size(PHONE)  # type: ignore[arg-type]
    sign_in(admin_user)
    page.goto("/")
    nav = page.get_by_role("navigation", name="Main")
    expect(nav).to_be_hidden()
    page.get_by_role("button", name="Menu").click()
    expect(nav).to_be_visible()
    _screenshot(page, "phone-menu")
    links = nav.get_by_role("link")
    for i in range(links.count()):  # every section on the screen, none to scroll to
        box = links.nth(i).bounding_box()
        assert box is not None
        assert box["x"] >= 0
        assert box["x"] + box["width"] <= PHONE["width"]
    assert links.count() >= 16
    nav.get_by_role("link", name="Audit").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Audit log")
    expect(nav).to_be_hidden()  # closed again on the next page


def _screenshot(page: Page, name: str) -> None:
    folder = os.environ.get("QQ_TEST_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)
