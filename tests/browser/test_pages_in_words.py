"""The pages a curator reads most, on the demo's data (``make dev``): a note, an entity, a
fact, the Jobs page and a rename preview speak in words (no snake_case key, no Python
repr, no function of the agent's code), and every date reads one way ("28 Nov 2026, 14:05
UTC"), on one line, its exact stored value in its title."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Locator, Page, expect

from memory_app.facts.lib import FactsStore
from memory_app.notes.stores import notes_store
from qqweb.jobs.runner import job_create, job_run_in_process
from qqweb.lib.actors import Actor
from tests.browser.conftest import VIEWPORT
from tests.browser.test_phone_width import demo
from tests.browser.words import assert_reads_as_words, shot
from tests.memory_app.facts.conftest import facts_store

__all__ = ["demo", "facts_store"]  # the demo's data; a fresh facts collection

HUMAN = re.compile(r"^\d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d( UTC)?$")
ISO = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d")


def assert_dates_read_one_way(where: Locator) -> int:
    """Every date in ``where`` is a ``<time>`` in the one format, its exact value in its
    title, never wrapped; no ISO timestamp is left in the text. Returns how many."""
    dates = where.locator("time.when")
    for i in range(dates.count()):
        date = dates.nth(i)
        assert HUMAN.match(date.inner_text()), date.inner_text()
        assert ISO.match(date.get_attribute("title") or ""), date.get_attribute("title")
        assert date.evaluate("e => getComputedStyle(e).whiteSpace") == "nowrap"
    text = where.evaluate(
        """e => { const c = e.cloneNode(true);
                  c.querySelectorAll('code, pre, input, textarea, script').forEach(n => n.remove());
                  return c.innerText; }"""
    )
    assert not ISO.search(text), f"an ISO timestamp in the text: {ISO.findall(text)}"
    return dates.count()


def test_a_note_reads_in_words_its_source_labelled_and_its_dates_human(
    page: Page, sign_in: Any, admin_user: Any, demo: dict[str, str]
) -> None:
    analysed = notes_store().collection.find_one(
        {"source.git_metadata.repo": {"$exists": True}}, {"note_id": 1, "source": 1}
    )
    assert analysed is not None  # the demo has notes the file analyzer wrote
    sign_in(admin_user)
    page.goto(f"/notes/{analysed['note_id']}/")
    card = page.locator("section.card").filter(has_text="Latest source")
    expect(card).to_contain_text("Repository" + analysed["source"]["git_metadata"]["repo"])
    expect(card).to_contain_text("File" + analysed["source"]["file_path"])
    assert_reads_as_words(page.locator("main"))
    assert assert_dates_read_one_way(page.locator("main")) >= 4  # created, updated, source...
    shot(page, "words-note")


def test_an_entity_and_its_rename_preview_read_in_words(
    page: Page, sign_in: Any, admin_user: Any, demo: dict[str, str]
) -> None:
    sign_in(admin_user)
    page.goto(f"/graph/entities/{demo['entity']}/")
    properties = page.locator("section.card").filter(has_text="Properties")
    expect(properties).to_contain_text("First seen")
    assert_reads_as_words(page.locator("main"))
    assert assert_dates_read_one_way(page.locator("main")) >= 2  # first and last seen
    # a source's long id (sha256:…) breaks inside its card instead of widening the page
    assert page.evaluate("document.documentElement.scrollWidth") <= VIEWPORT["width"]
    shot(page, "words-entity")
    page.locator("#entity-edit").get_by_label("Name").fill("Oslo City")
    page.locator("#entity-edit").get_by_role("button", name="Preview…").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Rename")
    expect(page.locator("main")).to_contain_text("a new entity of that name is created")
    expect(page.locator("main")).to_contain_text("that mention it, kept")
    assert_reads_as_words(page.locator("main"))
    assert "create_entity" not in page.locator("main").inner_text()
    shot(page, "words-rename-preview")


def test_a_fact_reads_in_words(
    page: Page, sign_in: Any, admin_user: Any, demo: dict[str, str]
) -> None:
    sign_in(admin_user)
    page.goto(f"/facts/{demo['fact']}/")
    document = page.locator("main .card").first
    expect(document.locator("#fact-metadata")).not_to_contain_text("{")
    assert_reads_as_words(document)
    assert "_id" not in document.inner_text()
    assert assert_dates_read_one_way(document) >= 1
    shot(page, "words-fact")


def test_the_jobs_results_read_in_words(
    page: Page, sign_in: Any, admin_user: Any, facts_store: FactsStore, demo: dict[str, str]
) -> None:
    actor = Actor("user", admin_user.get_username(), admin_user.pk, "admin")
    job_run_in_process(run=job_create(kind="vector_index_rebuild", actor=actor))
    job_run_in_process(run=job_create(kind="dedup_scan", actor=actor, dry_run=True))
    sign_in(admin_user)
    page.goto("/maintenance/")
    runs = page.locator("#runs-table")
    expect(runs).to_contain_text("vectors by dimension 384:")
    assert_reads_as_words(runs)
    shot(page, "words-jobs")
