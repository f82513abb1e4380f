"""Every page of the dashboard at a phone's width (390 px), on the demo's data: no page
is wider than the screen (nothing to scroll sideways, no button off the edge), and the
header's menu opens every section. Screenshots go to ``QQ_TEST_SCREENSHOTS`` when set."""

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
from memory_app.notes.services.notes import note_archive, note_edit
from memory_app.notes.stores import notes_store
from qqweb.jobs.runner import job_create, job_run_in_process
from qqweb.lib.actors import Actor
from tests.browser.conftest import PHONE
from tests.helpers import EMBEDDER
from tests.memory_app.facts.conftest import facts_store

__all__ = ["facts_store"]  # the facts tests' fixture: a fresh facts collection

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
    "/graph/orphans/",
    "/graph/duplicates/",
    "/graph/search/?q=Oslo",
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
    assert not too_wide, "\n".join(too_wide)


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
