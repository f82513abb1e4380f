"""A plan of 450 notes in the browser: 200 rows a page, "Next 200 →" and the page
numbers lead through all of them (plain links), no API address to copy, and the pager
fits a phone."""

import re
from typing import Any

from playwright.sync_api import Page, expect

from qqweb.jobs.models import Run
from qqweb.jobs.runner import job_create, job_run
from qqweb.lib.actors import Actor
from tests.browser.conftest import PHONE
from tests.browser.words import assert_reads_as_words, shot
from tests.helpers import plant_note

FADED = [f"note_{i:012d}" for i in range(450)]


def test_the_plan_pages_lead_through_every_row(page: Page, sign_in: Any, admin_user: Any) -> None:
    for note_id in FADED:
        plant_note(note_id, importance=0.01, days_old=300)
    run = job_create(
        kind="archival", actor=Actor("user", "ada-admin"), dry_run=True, params={"threshold": 0.05}
    )
    job_run(run=run)
    assert Run.objects.get(pk=run.pk).plan_size == 450
    sign_in(admin_user)
    page.goto(f"/maintenance/runs/{run.pk}/")
    rows = page.locator("#plan-table tr[data-note-id]")
    expect(rows).to_have_count(200)
    expect(page.locator("#run-plan")).not_to_contain_text("/api/")
    expect(page.locator(".plan-pager").first).to_contain_text("Rows 1-200 of 450")
    assert_reads_as_words(page)
    shot(page, "plan-pages-1280-first")
    seen = {rows.nth(i).get_attribute("data-note-id") for i in range(200)}

    page.locator(".pager-next").first.click()
    expect(page).to_have_url(re.compile(r"\?page=2#plan-table$"))
    expect(page.locator(".plan-pager").first).to_contain_text("Rows 201-400 of 450")
    seen |= {rows.nth(i).get_attribute("data-note-id") for i in range(200)}

    page.locator(".plan-pager").first.get_by_role("link", name="3", exact=True).click()
    expect(rows).to_have_count(50)
    expect(page.locator(".pager-next")).to_have_count(0)
    expect(page.locator(".pager-prev").first).to_have_text("← Previous 200")
    seen |= {rows.nth(i).get_attribute("data-note-id") for i in range(50)}
    assert seen == set(FADED)
    shot(page, "plan-pages-1280-last")

    page.set_viewport_size(PHONE)  # type: ignore[arg-type]
    page.goto(f"/maintenance/runs/{run.pk}/?page=2")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the plan's page is {width} px wide at 390 px"
    page.locator(".plan-pager").first.scroll_into_view_if_needed()
    shot(page, "plan-pages-390", full_page=False)
