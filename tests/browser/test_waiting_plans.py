"""A scheduled plan that waits says every reason it waits: an opted-in decay over the
share cap that would also lose a pinned recall names both on the Jobs page's banner,
not only the cap."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Page, expect

from memory_app.notes.services.jobs import scheduled_plan_settle, scheduled_run_create
from memory_app.notes.stores import notes_store
from qqweb.jobs.runner import job_run
from qqweb.lib.actors import Actor
from qqweb.recall.services import pin_create
from tests.browser.conftest import PHONE
from tests.browser.words import assert_reads_as_words, shot
from tests.helpers import plant_note

LUMEN = "Lumen stores its notes in MongoDB with embeddings"


def test_a_waiting_decay_names_the_pin_it_would_lose_beside_the_share_cap(
    page: Page, sign_in: Any, admin_user: Any
) -> None:
    """0.35 ten days old is 0.227 today (recalled); the decay writes 0.227, which the
    agent's retrieval decays again below 0.2. Both notes change: over the 5% cap."""
    plant_note("note_lumen000001", importance=0.35, days_old=10, content=LUMEN)
    plant_note("note_tea00000001", importance=0.9, days_old=10, content="Ada likes green tea")
    pin_create(
        actor=Actor("user", "ada-admin", role="admin"), query=LUMEN, item_id="note_lumen000001"
    )
    run = scheduled_run_create(kind="decay")
    job_run(run=run)
    assert scheduled_plan_settle(run_id=run.pk, apply=True) is None

    sign_in(admin_user)
    page.goto("/maintenance/")
    waits = page.locator("#plans-waiting")
    expect(waits).to_contain_text("more than QQ_SCHEDULE_MAX_SHARE (5%) allows on a schedule")
    expect(waits).to_contain_text(
        "allows on a schedule, and it would lose 1 pinned recall: it waits for review"
    )
    # the runs' results and the jobs' fields in words, not their keys
    runs = page.locator("#runs-table")
    expect(runs).to_contain_text("notes looked at 2")
    assert_reads_as_words(runs)
    expect(page.locator("#job-form-auto_consolidation")).to_contain_text("Use an LLM")
    shot(page, "waiting-plan-both-reasons")


def test_an_expired_plan_names_the_notes_that_changed_with_links_to_them(
    page: Page, sign_in: Any, admin_user: Any
) -> None:
    for n in range(25):
        plant_note(f"note_{n:016d}", importance=0.01, days_old=300)
    plant_note("note_tea00000001", importance=0.9, days_old=1, content="Ada likes green tea")
    run = scheduled_run_create(kind="archival")
    job_run(run=run)
    notes_store().update_importance("note_0000000000000003", 0.02)  # the agent, meanwhile
    for n in range(4, 25):
        notes_store().update_importance(f"note_{n:016d}", 0.03)

    sign_in(admin_user)
    page.goto(f"/maintenance/runs/{run.pk}/")
    expired = page.locator("#plan-expired")
    expect(expired).to_contain_text("This plan expired: 22 of its notes changed")
    expect(expired.locator("#plan-changed li")).to_have_count(20)
    expect(expired.locator("#plan-changed-more")).to_have_text("and 2 more")
    assert_reads_as_words(page)
    shot(page, "plan-expired-1280", full_page=False)
    page.set_viewport_size(PHONE)  # type: ignore[arg-type]
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the run page is {width} px wide at 390 px"
    shot(page, "plan-expired-390", full_page=False)
    first = expired.locator("#plan-changed li a").first
    note_id = expired.locator("#plan-changed li").first.get_attribute("data-note-id")
    first.click()
    expect(page).to_have_url(re.compile(rf"/notes/{note_id}/$"))
