"""bench/recall_data.py, which turns LoCoMo's conversations into the agent's notes and its
questions into pins, on a hand-written conversation of LoCoMo's shape (none of LoCoMo's
data: its licence keeps it out of the repository)."""

from __future__ import annotations

from datetime import datetime, timedelta

from bench.recall_data import (
    evidence_ids,
    note_documents,
    note_id,
    pins_of,
    questions_of,
    turns_of,
)

SAMPLE = {
    "sample_id": "conv-x",
    "conversation": {
        "speaker_a": "Ana",
        "speaker_b": "Bo",
        "session_1_date_time": "9:00 am on 1 March, 2024",
        "session_1": [
            {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a cat called Miso."},
            {
                "speaker": "Bo",
                "dia_id": "D1:2",
                "text": "Lovely! Look at mine.",
                "blip_caption": "a photo of a grey cat on a sofa",
            },
        ],
        "session_2_date_time": "6:30 pm on 11 March, 2024",
        "session_2": [
            {"speaker": "Ana", "dia_id": "D2:1", "text": "Miso learned to open doors."},
        ],
        "session_3_date_time": "1:00 pm on 1 April, 2024",  # dated, never held
    },
    "qa": [
        {"question": "What is Ana's cat called?", "evidence": ["D1:1"], "category": 4},
        {"question": "What did Miso learn?", "evidence": ["D2:1; D1:1"], "category": 1},
        {"question": "Does Bo have a dog?", "evidence": ["D1:2"], "category": 5},
        {"question": "Where does Ana work?", "evidence": ["D7:3"], "category": 4},
    ],
}
NOW = datetime(2026, 11, 26, 12, 0)


def test_each_turn_becomes_a_note_saying_who_said_it_and_the_photo_shared() -> None:
    turns = turns_of(SAMPLE)
    assert [t.dia_id for t in turns] == ["D1:1", "D1:2", "D2:1"]
    assert turns[0].text == "Ana: I adopted a cat called Miso."
    assert (
        turns[1].text
        == "Bo: Lovely! Look at mine. [shares a photo: a photo of a grey cat on a sofa]"
    )
    assert turns[2].at == datetime(2024, 3, 11, 18, 30)


def test_notes_are_as_old_as_their_session_before_the_last_one() -> None:
    docs = note_documents(turns_of(SAMPLE), now=NOW, namespace="n")
    last, first = docs[2], docs[0]
    assert last["created_at"] == NOW  # the last turn said is "now"
    assert NOW - first["created_at"] == datetime(2024, 3, 11, 18, 30) - datetime(2024, 3, 1, 9)
    assert first["updated_at"] == first["created_at"]
    assert docs[1]["created_at"] - first["created_at"] == timedelta(seconds=1)


def test_a_note_has_the_agents_shape_and_importance() -> None:
    doc = note_documents(turns_of(SAMPLE), now=NOW, namespace="n")[0]
    assert doc["note_id"] == note_id("n", "conv-x", "D1:1")
    assert doc["note_id"].startswith("note_") and len(doc["note_id"]) == 17
    assert doc["section"] == "Key Topics"
    assert doc["importance"] == 0.3  # the agent's baseline: no pattern matched
    assert (doc["access_count"], doc["last_accessed"], doc["decay_rate"]) == (0, None, 0.01)
    assert doc["source"]["source_type"] == "conversation"
    assert doc["source"]["source_id"] == "session:conv-x:1"


def test_fresh_notes_are_all_written_now() -> None:
    docs = note_documents(turns_of(SAMPLE), now=NOW, namespace="n", aged=False)
    assert {d["created_at"] for d in docs} == {NOW}


def test_two_loads_never_share_a_note_id() -> None:
    assert note_id("aged-dedup", "conv-x", "D1:1") != note_id("aged-archival", "conv-x", "D1:1")


def test_evidence_is_read_leniently() -> None:
    assert evidence_ids(["D8:6; D9:17", "D:11:26", "D30:05", "D8:6", "D"]) == (
        "D8:6",
        "D9:17",
        "D11:26",
        "D30:5",
    )


def test_questions_are_pinned_to_their_evidence_notes_and_the_rest_counted() -> None:
    by_dia = {t.dia_id: f"note-{t.dia_id}" for t in turns_of(SAMPLE)}
    pins = pins_of(questions_of(SAMPLE), by_dia)
    assert [(q.text, notes) for q, notes in pins.pinned] == [
        ("What is Ana's cat called?", ("note-D1:1",)),
        ("What did Miso learn?", ("note-D2:1", "note-D1:1")),
    ]
    assert pins.left_out == {"category 5": 1, "no evidence turn found": 1}
