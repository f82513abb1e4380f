"""The notes agent's retrieval as the memory tests ask it (selectors/recall.py)."""

from __future__ import annotations

import pytest

from memory_app.notes.selectors.recall import CORE_PREFIX, notes_recall
from memory_app.notes.services.merging import pair_merge
from memory_app.notes.services.notes import note_archive
from memory_app.notes.stores import core_notes
from qqweb.lib.actors import Actor
from qqweb.recall.engines import recall_engine
from tests.helpers import plant_note

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("mongo", "memory_dir")]

CURATOR = Actor("user", "curator", role="curator")
LUMEN = "Lumen stores its notes in MongoDB with embeddings"


def test_the_note_a_message_names_is_recalled_first_after_the_core_notes():
    plant_note("note_lumen00001", content=LUMEN)
    plant_note("note_other00001", content="Ada prefers tea in the morning")
    core_notes().add_core("The user is called Ada", "Identity")
    recall = notes_recall().recall(LUMEN)
    assert recall.error == ""
    assert recall.items[0].id == CORE_PREFIX + "The user is called Ada"
    assert recall.items[0].score is None  # always injected
    assert recall.rank_of("note_lumen00001") == 1
    assert recall.rank_of(CORE_PREFIX + "The user is called Ada") == 1
    assert recall.rank_of("note_other00001") is None  # below the citation threshold


def test_the_apps_registry_answers_with_the_notes_engine():
    engine = recall_engine("notes")
    assert engine is not None and engine.source == "notes" and engine.k == 10


def test_without_a_note_the_agent_recalls_what_it_would_once_the_note_is_gone():
    plant_note("note_lumen00001", content=LUMEN)
    assert notes_recall().recall(LUMEN, without=frozenset({"note_lumen00001"})).items == []
    assert notes_recall().recall(LUMEN).rank_of("note_lumen00001") == 1  # nothing written


def test_an_archived_note_is_not_recalled_and_its_whereabouts_say_when_and_why():
    plant_note("note_lumen00001", content=LUMEN)
    note_archive(actor=CURATOR, note_id="note_lumen00001", reason="wrong")
    engine = notes_recall()
    assert engine.recall(LUMEN).rank_of("note_lumen00001") is None
    where = engine.whereabouts("note_lumen00001")
    assert not where.present and where.text == LUMEN
    assert where.reason.startswith("archived on ") and where.reason.endswith(": wrong")


def test_a_merged_note_is_followed_to_the_note_that_holds_its_text():
    plant_note("note_lumen00001", content=LUMEN, importance=0.9)
    plant_note("note_lumen00002", content=LUMEN + " too", importance=0.3)
    pair_merge(
        actor=CURATOR,
        note_a_id="note_lumen00001",
        note_b_id="note_lumen00002",
        primary_id="note_lumen00001",
    )
    where = notes_recall().whereabouts("note_lumen00002")
    assert not where.present and where.now_id == "note_lumen00001"
    assert where.reason.startswith("merged into note_lumen00001 on ")


def test_a_deleted_note_and_a_core_note_taken_out_say_so():
    engine = notes_recall()
    assert engine.whereabouts("note_gone0000001").reason.startswith("deleted")
    where = engine.whereabouts(CORE_PREFIX + "The user is called Ada")
    assert not where.present and where.reason == "no longer in core.md"


def test_the_score_of_a_note_says_how_close_it_came():
    plant_note("note_lumen00001", content=LUMEN)
    assert notes_recall().score(LUMEN, "note_lumen00001") == pytest.approx(1.0, abs=1e-3)
    assert notes_recall().score(LUMEN, "note_gone0000001") is None


def test_decayed_notes_nearer_the_message_do_not_push_a_cited_note_out():
    """The agent cites the best notes it does not leave out: twenty-five decayed notes
    nearer the message than the one it cites do not hide it (the engine reads on past
    them)."""
    for i in range(25):
        plant_note(f"note_faded{i:06d}", content=LUMEN, importance=0.05)
    plant_note("note_lumen00001", content=LUMEN + " and a vector index", importance=0.6)
    recall = notes_recall().recall(LUMEN)
    assert recall.rank_of("note_lumen00001") == 1
    assert [i.id for i in recall.items] == ["note_lumen00001"]


def test_present_answers_for_every_id_what_its_whereabouts_say():
    """A plan's preview asks ``present`` of all the pins at once: a core note whose text
    core.md holds only inside a longer bullet is gone (its pin fails), as its whereabouts
    say, and so are a missing note and an archived one."""
    plant_note("note_lumen00001", content=LUMEN)
    plant_note("note_gone000001", content="Ada prefers tea")
    note_archive(actor=CURATOR, note_id="note_gone000001", reason="wrong")
    core_notes().add_core("The user is called Ada Lovelace", "Identity")
    ids = [
        "note_lumen00001",
        "note_gone000001",
        "note_never00001",
        CORE_PREFIX + "The user is called Ada Lovelace",
        CORE_PREFIX + "The user is called Ada",
    ]
    engine = notes_recall()
    assert engine.present(ids) == {i for i in ids if engine.whereabouts(i).present}
    assert engine.present(ids) == {
        "note_lumen00001",
        CORE_PREFIX + "The user is called Ada Lovelace",
    }
