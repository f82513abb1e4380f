"""A scheduled plan that waits says every reason it waits: an opted-in decay over the
share cap that would also lose a pinned recall names both on the Jobs page's banner,
not only the cap."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, expect

from memory_app.notes.services.jobs import scheduled_plan_settle, scheduled_run_create
from qqweb.jobs.runner import job_run
from qqweb.lib.actors import Actor
from qqweb.recall.services import pin_create
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
    expect(runs).to_contain_text("of the notes 2")
    assert_reads_as_words(runs)
    expect(page.locator("#job-form-auto_consolidation")).to_contain_text("Use an LLM")
    shot(page, "waiting-plan-both-reasons")
