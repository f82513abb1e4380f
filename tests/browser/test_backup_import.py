"""A finished import of the valid records says what it did and no longer offers its red
"Import the valid records" button (its preview did)."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, expect

from memory_app.notes.stores import notes_store
from qqweb.backup import ndjson
from qqweb.backup.services import backup_run, import_create, upload_save
from qqweb.lib.actors import Actor
from tests.browser.words import shot
from tests.helpers import plant_note
from tests.qqweb.backup.test_refused_records import _note_record, export_file


def test_a_finished_import_of_the_valid_records_shows_no_import_button(
    page: Page, sign_in: Any, admin_user: Any, tmp_path: Any
) -> None:
    good = plant_note("note_0000000000g1", content="Lumen deploys on Fridays")
    notes_store().collection.delete_one({"note_id": "note_0000000000g1"})
    records = [
        {"kind": "note", "document": ndjson.bson_to_json(good)},
        _note_record(importance=float("inf")),
    ]
    name = upload_save(chunks=[export_file(tmp_path / "e.ndjson", *records).read_bytes()])
    preview = import_create(actor=Actor.job("test"), file=name, dry_run=True)
    backup_run(run=preview)
    sign_in(admin_user)
    page.goto(f"/backup/runs/{preview.pk}/")
    button = page.get_by_role("button", name="Import the valid records, leaving out the 1 refused")
    expect(button).to_be_visible()  # the preview offers it

    done = import_create(actor=Actor.job("test"), file=name, dry_run=False, import_valid=True)
    backup_run(run=done)
    page.goto(f"/backup/runs/{done.pk}/")
    expect(page.locator("#run-status")).to_contain_text("Left out: 1 refused record(s)")
    expect(page.locator("#run-status")).to_contain_text(
        "Inserted: 1 note, 0 graph nodes, 0 relationships, 0 facts."
    )
    expect(page.locator("#import-form")).to_have_count(0)
    expect(page.get_by_role("button", name="Import the valid records")).to_have_count(0)
    shot(page, "finished-import-no-button")
