"""The memory tests' pins go out with a backup and come back on import; a pin pinned
already is left as it is, a malformed pin record is refused with the reason."""

from __future__ import annotations

import json

import pytest

from qqweb.backup.exporting import backup_export
from qqweb.backup.importing import backup_import, backup_preview
from qqweb.lib.actors import Actor
from qqweb.recall.models import Pin
from qqweb.recall.services import pin_create
from tests.helpers import plant_note

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("stores")]

CURATOR = Actor("user", "curator", role="curator")
LUMEN = "Lumen stores its notes in MongoDB with embeddings"


@pytest.fixture
def exported(tmp_path):
    plant_note("note_lumen00001", content=LUMEN)
    pin = pin_create(actor=CURATOR, query="Where are the notes?", item_id="note_lumen00001")
    path = tmp_path / "export.ndjson"
    summary = backup_export(destination=path)
    assert summary.counts["pin"] == 1
    return path, pin


def test_an_export_holds_the_pins_and_an_import_brings_them_back_as_they_were(exported):
    path, pin = exported
    Pin.objects.all().delete()
    summary = backup_import(source=path, accept_conflicts=True)  # the note is still there
    assert summary.pins_inserted == 1
    back = Pin.objects.get()
    assert (back.query, back.item_id, back.item_text) == (pin.query, pin.item_id, LUMEN)
    assert (back.created_by, back.created_at) == ("user:curator", pin.created_at)


def test_a_pin_pinned_already_is_a_conflict_left_as_it_is(exported):
    path, pin = exported
    Pin.objects.filter(pk=pin.pk).update(comment="mine")
    assert backup_preview(source=path).pins_present == 1
    summary = backup_import(source=path, accept_conflicts=True)
    assert summary.pins_inserted == 0
    assert Pin.objects.get().comment == "mine"


def test_a_malformed_pin_record_is_refused_with_the_reason(exported):
    path, _pin = exported
    lines = path.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if json.loads(line)["kind"] == "pin")
    record = json.loads(lines[at])
    record["query"] = 42
    lines[at] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")
    refused = backup_preview(source=path).refused
    assert [(r["kind"], r["reason"]) for r in refused] == [
        ("pin", "its query must be a text, not a number")
    ]


def test_a_pin_on_a_note_without_a_vector_is_put_back_and_named_in_the_summary(tmp_path):
    """Kept with a warning (qqweb/recall/backup.py): a new pin on it is refused, but a
    backup's pin comes back as it was, and the import says no search can recall it."""
    plant_note("note_novector01", content=LUMEN, embedding=[])
    Pin.objects.create(  # pinned before its vector was lost, as the export kept it
        source="notes", query="Where are the notes?", item_id="note_novector01", item_text=LUMEN
    )
    path = tmp_path / "export.ndjson"
    backup_export(destination=path)
    Pin.objects.all().delete()
    summary = backup_import(source=path, accept_conflicts=True)
    assert summary.pins_inserted == 1 and Pin.objects.get().item_id == "note_novector01"
    [warned] = summary.to_json()["pins_unsearchable"]
    assert (warned["query"], warned["item_id"]) == ("Where are the notes?", "note_novector01")
    assert "this note has no vector yet, so no search can recall it" in warned["why"]
