"""The decay pass against the real MongoDB: written back, never compounding."""

from datetime import timedelta

import pytest

from memory_app.notes.lib.mongo_store import utcnow_naive
from memory_app.notes.stores import notes_store
from tests.helpers import plant_note

pytestmark = pytest.mark.usefixtures("mongo")

NOW = utcnow_naive()


def plant(note_id, importance, days_old, **extra):
    return plant_note(note_id, importance, days_old, now=NOW, **extra)


def importance(note_id):
    return notes_store().get_full_note(note_id)["importance"]


def test_a_dry_run_reports_and_changes_nothing():
    plant("note_0000000000a1", 0.8, 20)
    report = notes_store().decay_pass(NOW, dry_run=True)
    assert (report.scanned, report.changed, report.written) == (1, 1, 0)
    assert report.sample[0][0] == "note_0000000000a1" and report.sample[0][2] < 0.8
    assert importance("note_0000000000a1") == 0.8


def test_running_twice_changes_nothing_the_second_time():
    plant("note_0000000000a1", 0.8, 20)
    plant("note_0000000000a2", 0.5, 0)  # created today: nothing to decay
    first = notes_store().decay_pass(NOW)
    value = importance("note_0000000000a1")
    assert first.written == 1 and value == round((0.8 - 0.2) / 1.2, 6)
    second = notes_store().decay_pass(NOW)
    assert (second.changed, second.written) == (0, 0)
    assert importance("note_0000000000a1") == value


def test_daily_passes_end_where_one_pass_would():
    plant("note_0000000000a1", 0.9, 5, access_count=3)
    for day in range(1, 11):
        notes_store().decay_pass(NOW + timedelta(days=day))
    daily = importance("note_0000000000a1")
    notes_store().collection.update_many(
        {},
        {
            "$set": {"importance": 0.9},
            "$unset": {"qqweb_base_importance": 1, "qqweb_decayed_importance": 1},
        },
    )
    notes_store().decay_pass(NOW + timedelta(days=10))
    assert daily == importance("note_0000000000a1")


def test_an_importance_the_agent_writes_is_respected():
    plant("note_0000000000a1", 0.8, 20)
    notes_store().decay_pass(NOW)
    notes_store().update_importance("note_0000000000a1", 0.95)  # the agent boosts it
    notes_store().decay_pass(NOW)
    assert importance("note_0000000000a1") == round((0.95 - 0.2) / 1.2, 6)
