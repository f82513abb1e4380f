"""Maintenance in the browser, through the real worker on the broker ``make dev`` uses: a
destructive job's dry run shows its plan and applying it archives exactly the planned
notes; a run is undone in the worker and its notes come back."""

import re
import time
from typing import Any

from django.conf import settings
from playwright.sync_api import Page, expect

from memory_app.notes.stores import archive_manager, notes_store
from qqweb.audit.models import AuditEvent
from qqweb.jobs.models import Run
from qqweb.jobs.runner import job_create, job_run
from qqweb.lib.actors import Actor
from tests.browser.words import assert_reads_as_words, shot
from tests.helpers import plant_note

FADED = ("note_0000000000f1", "note_0000000000f2", "note_0000000000f3")
KEPT = ("note_0000000000k1", "note_0000000000k2")
# Long enough for the worker on a loaded 2-core machine; a wait ends as soon as it is met.
WORKER_WAIT = 60_000


def _plant() -> None:
    """Three notes faded far below the archival threshold, two important recent ones."""
    for note_id in FADED:
        plant_note(note_id, importance=0.01, days_old=300)
    for note_id in KEPT:
        plant_note(note_id, importance=0.9, days_old=1)


def _in_list(page: Page, note_id: str) -> Any:
    return page.locator(f'#notes-table a[href="/notes/{note_id}/"]')


def test_a_dry_run_shows_its_plan_and_applying_archives_exactly_the_planned_notes(
    page: Page, sign_in: Any, admin_user: Any, dev_broker_worker: dict[str, str]
) -> None:
    _plant()
    sign_in(admin_user)
    page.goto("/maintenance/")
    page.locator("#job-form-archival input[name=threshold]").fill("0.05")
    page.locator("#job-preview-archival").click()
    expect(page.locator("#run-status")).to_have_text("done", timeout=WORKER_WAIT)
    expect(page.locator("#plan-summary")).to_contain_text("Archive 3 of 5 notes (60%)?")
    rows = page.locator("#plan-table tr[data-note-id]")
    expect(rows).to_have_count(3)
    planned = {rows.nth(i).get_attribute("data-note-id") for i in range(3)}
    assert planned == set(FADED)
    assert notes_store().count() == 5  # the dry run changed nothing

    page.locator("#plan-apply-button").click()
    expect(page.locator("#run-plan-of")).to_be_visible()
    expect(page.locator("#run-status")).to_have_text("done", timeout=WORKER_WAIT)
    expect(page.locator('[data-stat="archived"]')).to_have_text("3")
    store = notes_store()
    assert {i for i in FADED + KEPT if store.note(i) is None} == planned
    assert all(archive_manager().find_line(i) is not None for i in planned)


def test_undoing_a_run_in_the_worker_brings_its_notes_back(
    page: Page, sign_in: Any, admin_user: Any, dev_broker_worker: dict[str, str]
) -> None:
    _plant()
    run = job_create(
        kind="archival", actor=Actor("user", "ada-admin"), dry_run=False, params={"threshold": 0.05}
    )
    job_run(run=run)
    run.refresh_from_db()
    assert run.stats["archived"] == 3
    sign_in(admin_user)
    page.goto("/notes/")
    expect(page.locator("#notes-table tbody tr")).to_have_count(2)

    page.goto(f"/maintenance/runs/{run.pk}/")
    days = settings.QQ_RESTORE_GRACE_DAYS
    grace = f"kept from the archival pass for {days} days"
    expect(page.locator("#run-undo-grace")).to_contain_text(grace)  # said before the click
    page.locator("#run-undo").click()
    expect(page.locator("#messages")).to_contain_text(grace)  # and after it
    expect(page.locator("#run-title")).to_have_text(
        re.compile(rf"^Run #\d+: undo of run #{run.pk}$")
    )
    expect(page.locator("#run-status")).to_have_text("done", timeout=WORKER_WAIT)
    assert_reads_as_words(page.locator("#run-detail"))
    shot(page, "undo-run-in-words")
    undo = Run.objects.get(undo_of=run)
    # the run's changes and its undo's are two batches of the audit log, not one of 6
    assert AuditEvent.objects.filter(batch_id=run.batch_id).count() == 3
    assert (
        AuditEvent.objects.filter(batch_id=undo.batch_id, action="undo.note.archive").count() == 3
    )
    page.get_by_role("link", name=f"run #{run.pk}", exact=True).click()
    expect(page.locator("#run-undone")).to_have_attribute("data-undo-status", "done")
    expect(page.locator("#run-undone")).to_contain_text("3 changes undone")
    expect(page.locator("#run-undo")).to_have_count(0)

    # The worker wrote them back in its own process: the web process's list (its read
    # model) shows them once its follower has seen those writes, about a second later.
    deadline = time.monotonic() + 15
    while True:
        page.goto("/notes/")
        missing = [n for n in FADED + KEPT if _in_list(page, n).count() == 0]
        if not missing or time.monotonic() > deadline:
            break
        page.wait_for_timeout(250)
    assert not missing, f"not back in the list: {missing}"
