"""``manage.py memory_tests``: one line a pin, the measures, the run stored, exit 1 on a
failing pin and 0 otherwise."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from memory_app.notes.services.notes import note_archive
from qqweb.lib.actors import Actor
from qqweb.recall.models import TestRun
from qqweb.recall.services import pin_create
from tests.helpers import plant_note

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("mongo", "memory_dir")]

CURATOR = Actor("user", "curator", role="curator")
LUMEN = "Lumen stores its notes in MongoDB with embeddings"


def _command(*args: str) -> tuple[int, str]:
    out = StringIO()
    try:
        call_command("memory_tests", *args, stdout=out)
    except SystemExit as e:
        return int(e.code or 0), out.getvalue()
    return 0, out.getvalue()


def test_every_pin_passing_exits_0_with_a_line_a_pin_and_the_measures():
    plant_note("note_lumen00001", content=LUMEN)
    pin_create(actor=CURATOR, query=LUMEN, item_id="note_lumen00001")
    code, out = _command()
    assert code == 0
    assert f"PASS [notes] {LUMEN!r} -> note_lumen00001, rank 1" in out
    assert "notes: 1/1 pass, recall@10 1.000, MRR 1.000" in out
    run = TestRun.objects.get()
    assert run.trigger == "command" and run.actor == "job:command:memory_tests"


def test_a_failing_pin_exits_1_with_its_reason():
    plant_note("note_lumen00001", content=LUMEN)
    pin_create(actor=CURATOR, query=LUMEN, item_id="note_lumen00001")
    note_archive(actor=CURATOR, note_id="note_lumen00001", reason="outdated")
    code, out = _command()
    assert code == 1
    line = next(line for line in out.splitlines() if line.startswith("FAIL"))
    assert "not recalled: archived on " in line and line.endswith(": outdated")
    assert "notes: 0/1 pass, recall@10 0.000, MRR 0.000" in out


def test_json_prints_the_same_run():
    plant_note("note_lumen00001", content=LUMEN)
    pin_create(actor=CURATOR, query=LUMEN, item_id="note_lumen00001")
    code, out = _command("--json")
    assert code == 0
    report = json.loads(out)
    assert report["passed"] == 1 and report["sources"]["notes"]["recall_at_k"] == 1.0
    assert report["pins"][0]["rank"] == 1 and report["pins"][0]["item_id"] == "note_lumen00001"


def test_no_pins_exits_0_and_says_how_to_add_one():
    code, out = _command()
    assert code == 0 and "no pins" in out
