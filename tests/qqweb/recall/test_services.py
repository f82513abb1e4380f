"""Pin, unpin and import (qqweb/recall/services.py): audited, undoable, refused with the
reason."""

from __future__ import annotations

import json

import pytest

from memory_app.notes.selectors.recall import CORE_PREFIX
from memory_app.notes.stores import core_notes
from qqweb.audit.models import AuditEvent
from qqweb.audit.services import audit_undo, batch_undo
from qqweb.lib.actors import Actor
from qqweb.lib.errors import InvalidInput
from qqweb.recall.errors import (
    AlreadyPinned,
    ItemNotFound,
    PinLinesRefused,
    PinNotFound,
    TooManyPins,
)
from qqweb.recall.models import Pin
from qqweb.recall.services import pin_create, pin_delete, pins_import
from tests.helpers import plant_note

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("mongo", "memory_dir")]

CURATOR = Actor("user", "curator", role="curator")
LUMEN = "Lumen stores its notes in MongoDB with embeddings"
QUESTION = "Where does Lumen keep its notes?"


def test_a_pin_keeps_the_question_the_note_its_text_and_who_pinned_it():
    plant_note("note_lumen00001", content=LUMEN)
    pin = pin_create(actor=CURATOR, query=QUESTION, item_id="note_lumen00001", comment="key")
    assert (pin.source, pin.query, pin.item_id) == ("notes", QUESTION, "note_lumen00001")
    assert pin.item_text == LUMEN and pin.comment == "key"
    assert pin.created_by == "user:curator"
    event = AuditEvent.objects.get(action="recall.pin")
    assert event.status == AuditEvent.DONE and event.target_id == "note_lumen00001"


def test_a_core_note_can_be_pinned_by_its_text():
    core_notes().add_core("The user is called Ada", "Identity")
    pin = pin_create(
        actor=CURATOR, query="Who am I?", item_id=CORE_PREFIX + "The user is called Ada"
    )
    assert pin.item_text == "The user is called Ada"


def test_a_pin_of_a_note_that_does_not_exist_is_refused_naming_it():
    with pytest.raises(ItemNotFound, match="note_gone0000001") as refused:
        pin_create(actor=CURATOR, query=QUESTION, item_id="note_gone0000001")
    assert refused.value.status == 400 and refused.value.field == "item_id"
    assert not Pin.objects.exists()


def test_an_empty_question_and_an_unknown_memory_are_refused_naming_the_field():
    plant_note("note_lumen00001", content=LUMEN)
    with pytest.raises(InvalidInput) as empty:
        pin_create(actor=CURATOR, query="  ", item_id="note_lumen00001")
    assert empty.value.field == "query"
    with pytest.raises(InvalidInput, match="no memory 'facts'") as unknown:
        pin_create(actor=CURATOR, query=QUESTION, item_id="x", source="facts")
    assert unknown.value.field == "source"


def test_the_same_recall_cannot_be_pinned_twice():
    plant_note("note_lumen00001", content=LUMEN)
    pin_create(actor=CURATOR, query=QUESTION, item_id="note_lumen00001")
    with pytest.raises(AlreadyPinned) as twice:
        pin_create(actor=CURATOR, query=QUESTION, item_id="note_lumen00001")
    assert twice.value.status == 409
    assert Pin.objects.count() == 1


def test_undoing_a_pin_removes_it():
    plant_note("note_lumen00001", content=LUMEN)
    pin_create(actor=CURATOR, query=QUESTION, item_id="note_lumen00001")
    audit_undo(actor=CURATOR, event_id=AuditEvent.objects.get(action="recall.pin").pk)
    assert not Pin.objects.exists()


def test_unpin_removes_the_pin_and_its_undo_brings_it_back_with_its_id():
    plant_note("note_lumen00001", content=LUMEN)
    pin = pin_create(actor=CURATOR, query=QUESTION, item_id="note_lumen00001", comment="key")
    pin_delete(actor=CURATOR, pin_id=pin.pk)
    assert not Pin.objects.exists()
    audit_undo(actor=CURATOR, event_id=AuditEvent.objects.get(action="recall.unpin").pk)
    back = Pin.objects.get()
    assert back.pk == pin.pk and back.comment == "key" and back.item_text == LUMEN
    assert back.created_at == pin.created_at


def test_unpinning_a_pin_that_does_not_exist_says_so():
    with pytest.raises(PinNotFound):
        pin_delete(actor=CURATOR, pin_id=404)


def _jsonl(*rows: dict[str, str]) -> str:
    return "\n".join(json.dumps(row) for row in rows) + "\n"


def test_an_import_pins_every_line_as_one_batch_and_undoes_as_one():
    plant_note("note_lumen00001", content=LUMEN)
    plant_note("note_tea0000001", content="Ada prefers tea in the morning")
    text = _jsonl(
        {"query": QUESTION, "item_id": "note_lumen00001", "comment": "from the evals"},
        {"query": "What does Ada drink?", "item_id": "note_tea0000001", "source": "notes"},
    )
    result = pins_import(actor=CURATOR, text="\n" + text)  # a blank line is skipped
    assert len(result.created) == 2 and result.already == 0
    assert {p.item_id for p in Pin.objects.all()} == {"note_lumen00001", "note_tea0000001"}
    events = AuditEvent.objects.filter(action="recall.pin")
    assert {e.batch_id for e in events} == {result.batch_id}
    undone, refused = batch_undo(actor=CURATOR, batch_id=result.batch_id)
    assert (undone, refused) == (2, [])
    assert not Pin.objects.exists()


def test_an_import_leaves_recalls_pinned_already_as_they_were():
    plant_note("note_lumen00001", content=LUMEN)
    pin_create(actor=CURATOR, query=QUESTION, item_id="note_lumen00001", comment="mine")
    row = {"query": QUESTION, "item_id": "note_lumen00001", "comment": "theirs"}
    result = pins_import(actor=CURATOR, text=_jsonl(row, row))
    assert result.created == [] and result.already == 2
    assert Pin.objects.get().comment == "mine"


@pytest.mark.parametrize(
    ("line", "field", "message"),
    [
        ("{not json", "line", "is not JSON"),
        ('["a list"]', "line", "must be a JSON object, not a list"),
        ('{"item_id": "note_lumen00001"}', "query", "is missing"),
        ('{"query": 3, "item_id": "note_lumen00001"}', "query", "must be a text, not a number"),
        ('{"query": "q", "item_id": "note_lumen00001", "itemid": "x"}', "itemid", "not a field"),
        ('{"query": "q", "item_id": "note_gone0000001"}', "item_id", "no item 'note_gone0000001'"),
        ('{"query": "a", "query": "b", "item_id": "note_lumen00001"}', "query", "given twice"),
        ('{"query": "q\\u0000", "item_id": "note_lumen00001"}', "query", "a NUL character"),
        ('{"query": "q\\ud800", "item_id": "note_lumen00001"}', "query", "surrogate (U+D800)"),
        ("[" * 100_000 + "]" * 100_000, "line", "nests too deeply to be read"),
        ('{"query": ' + "9" * 5000 + ', "item_id": "x"}', "query", "not a number"),
        ('{"$where": "1", "query": "q", "item_id": "note_lumen00001"}', "$where", "not a field"),
    ],
)
def test_a_bad_line_refuses_the_whole_import_naming_the_line_and_field(line, field, message):
    plant_note("note_lumen00001", content=LUMEN)
    good = json.dumps({"query": QUESTION, "item_id": "note_lumen00001"})
    with pytest.raises(PinLinesRefused) as refused:
        pins_import(actor=CURATOR, text=f"{good}\n{line}\n")
    assert refused.value.status == 400
    assert refused.value.line == 2 and refused.value.field == field
    (problem,) = refused.value.problems
    assert (problem.line, problem.field) == (2, field) and message in problem.message
    assert str(refused.value).startswith("1 line refused, nothing imported: line 2: ")
    assert not Pin.objects.exists()
    assert not AuditEvent.objects.filter(action="recall.pin").exists()


def test_every_bad_line_is_named_with_its_reason_in_words():
    plant_note("note_lumen00001", content=LUMEN)
    text = (
        '{"query": "q", "item_id": "note_lumen00001", "itemid": "x"}\n'
        "\n"
        '{"query": "q", "item_id": "note_gone0000001"}\n'
        '{"query": 1, "item_id": 2}\n'
    )
    with pytest.raises(PinLinesRefused) as refused:
        pins_import(actor=CURATOR, text=text)
    assert [str(p) for p in refused.value.problems] == [
        "line 1: itemid: is not a field (the fields are query, item_id, source, comment)",
        "line 3: item_id: notes has no item 'note_gone0000001': deleted: it is neither in "
        "MongoDB nor archived",
        "line 4: query: must be a text, not a number",
        "line 4: item_id: must be a text, not a number",
    ]
    assert str(refused.value).startswith("3 lines refused, nothing imported: line 1: itemid:")
    assert "(" + "'query'" not in str(refused.value)  # no Python tuple in the message
    assert not Pin.objects.exists()


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85", "\x0c", "\x1e"])
def test_a_line_break_json_keeps_inside_a_string_stays_in_its_line(separator):
    plant_note("note_lumen00001", content=LUMEN)
    line = json.dumps({"query": f"Where{separator}are the notes?", "item_id": "note_lumen00001"})
    result = pins_import(actor=CURATOR, text=json.dumps(json.loads(line), ensure_ascii=False))
    assert [p.query for p in result.created] == [f"Where{separator}are the notes?"]


def test_windows_line_ends_are_read_as_line_ends():
    plant_note("note_lumen00001", content=LUMEN)
    plant_note("note_tea0000001", content="Ada prefers tea in the morning")
    text = (
        '{"query": "Where are the notes?", "item_id": "note_lumen00001"}\r\n'
        '{"query": "What does Ada drink?", "item_id": "note_tea0000001"}\r\n'
    )
    result = pins_import(actor=CURATOR, text=text)
    assert sorted(p.query for p in result.created) == [
        "What does Ada drink?",
        "Where are the notes?",
    ]


@pytest.mark.parametrize(
    ("query", "message"),
    [("q\x00uery", "holds a NUL character"), ("q\ud800", "lone UTF-16 surrogate")],
)
def test_a_query_no_database_can_hold_is_refused_before_anything_is_written(query, message):
    plant_note("note_lumen00001", content=LUMEN)
    with pytest.raises(InvalidInput, match=message) as refused:
        pin_create(actor=CURATOR, query=query, item_id="note_lumen00001")
    assert refused.value.field == "query" and refused.value.status == 400
    assert not Pin.objects.exists() and not AuditEvent.objects.exists()


def test_a_memory_holds_at_most_its_limit_of_pins(settings):
    settings.QQ_MAX_PINS_PER_MEMORY = 2
    plant_note("note_lumen00001", content=LUMEN)
    pin_create(actor=CURATOR, query="one", item_id="note_lumen00001")
    pin_create(actor=CURATOR, query="two", item_id="note_lumen00001")
    with pytest.raises(TooManyPins, match="at most 2 pins") as refused:
        pin_create(actor=CURATOR, query="three", item_id="note_lumen00001")
    assert refused.value.status == 409 and Pin.objects.count() == 2
    again = _jsonl({"query": "one", "item_id": "note_lumen00001"})
    assert pins_import(actor=CURATOR, text=again).already == 1  # pinned already: no room needed
    Pin.objects.filter(query="two").delete()
    more = _jsonl(
        {"query": "two", "item_id": "note_lumen00001"},
        {"query": "three", "item_id": "note_lumen00001"},
    )
    with pytest.raises(TooManyPins, match="pinning 2 more would make 3"):
        pins_import(actor=CURATOR, text=more)
    assert Pin.objects.count() == 1


def test_an_empty_import_is_refused():
    with pytest.raises(InvalidInput, match="no line"):
        pins_import(actor=CURATOR, text="\n  \n")


def test_a_long_core_note_is_pinned_and_its_audit_event_names_it_within_its_limit():
    text = "The user is called Ada and " + "likes long sentences " * 30
    core_notes().add_core(text.strip(), "Identity")
    pin = pin_create(actor=CURATOR, query="Who am I?", item_id=CORE_PREFIX + text.strip())
    event = AuditEvent.objects.get(action="recall.pin")
    assert len(event.target_id) == 300 and pin.item_id.startswith(event.target_id)
