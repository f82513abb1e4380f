"""The effect of a curation plan on the pinned recalls (qqweb/recall/effects.py), computed
on the plan with the agent's own retrieval, before anything is written."""

from __future__ import annotations

import pytest

from memory_app.notes.services.merging import pair_merge
from memory_app.notes.stores import notes_store
from qqweb.lib.actors import Actor
from qqweb.recall.effects import plan_effect
from qqweb.recall.services import pin_create
from tests.helpers import plant_note
from tests.services import free_port

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("mongo", "memory_dir")]

CURATOR = Actor("user", "curator", role="curator")
LUMEN = "Lumen stores its notes in MongoDB with embeddings"
TEA = "Ada prefers green tea in the morning"


def _pin(item_id: str, query: str) -> None:
    pin_create(actor=CURATOR, query=query, item_id=item_id)


@pytest.fixture
def two_pins(mongo, memory_dir):
    plant_note("note_lumen00001", content=LUMEN)
    plant_note("note_tea0000001", content=TEA)
    _pin("note_lumen00001", LUMEN)
    _pin("note_tea0000001", TEA)


@pytest.mark.usefixtures("two_pins")
def test_archiving_a_recalled_pinned_note_loses_its_pin_and_writes_nothing():
    effect = plan_effect("notes", {"note_lumen00001": None}, gone="archived by this plan")
    [lost] = effect.lost
    assert (lost.query, lost.item_id, lost.item_text) == (LUMEN, "note_lumen00001", LUMEN)
    assert lost.why == "archived by this plan"
    assert effect.pins == 2 and effect.highlight == {"note_lumen00001"}
    assert effect.summary == "This plan loses 1 of 2 pinned recalls"
    assert notes_store().count() == 2  # computed on the plan
    assert notes_store().note("note_lumen00001") is not None


@pytest.mark.usefixtures("two_pins")
def test_a_plan_that_touches_no_pinned_note_loses_nothing():
    plant_note("note_other00001", content="The build runs on two cores")
    effect = plan_effect("notes", {"note_other00001": None}, gone="archived by this plan")
    assert effect.lost == [] and effect.highlight == frozenset()
    assert effect.summary == "" and effect.pins == 2


def test_a_pin_that_fails_already_is_not_lost_by_the_plan_but_its_row_is_marked():
    plant_note("note_tea0000001", content=TEA)
    _pin("note_tea0000001", LUMEN)  # scores below the citation threshold: fails now
    effect = plan_effect("notes", {"note_tea0000001": None}, gone="archived by this plan")
    assert effect.lost == [] and effect.highlight == {"note_tea0000001"}


def test_a_merge_into_a_note_the_agent_recalls_keeps_the_pin():
    plant_note("note_lumen00001", content=LUMEN)
    plant_note("note_lumen00002", content=LUMEN + " too")
    _pin("note_lumen00002", LUMEN)
    effect = plan_effect("notes", {"note_lumen00002": "note_lumen00001"})
    assert effect.lost == [] and effect.highlight == {"note_lumen00002"}


def test_a_merge_into_a_note_the_agent_does_not_recall_loses_the_pin_saying_where_it_went():
    plant_note("note_lumen00001", content=LUMEN)
    plant_note("note_tea0000001", content=TEA)
    _pin("note_lumen00001", LUMEN)
    [lost] = plan_effect("notes", {"note_lumen00001": "note_tea0000001"}).lost
    assert lost.why.startswith(
        "merged into note_tea0000001 by this plan, and note_tea0000001 is not recalled: scores"
    )
    assert "below the citation threshold" in lost.why
    # the pages read it in words: the survivor named by its text, not its id
    assert lost.reason.startswith(f"merged into “{TEA}” by this plan, and “{TEA}” is not")
    assert "note_tea0000001" not in lost.reason


def test_archiving_the_survivor_of_an_earlier_merge_loses_the_pin_of_the_merged_note():
    plant_note("note_lumen00001", content=LUMEN, importance=0.9)
    plant_note("note_lumen00002", content=LUMEN + " too", importance=0.3)
    _pin("note_lumen00002", LUMEN)
    pair_merge(
        actor=CURATOR,
        note_a_id="note_lumen00001",
        note_b_id="note_lumen00002",
        primary_id="note_lumen00001",
    )
    effect = plan_effect("notes", {"note_lumen00001": None}, gone="archived by this plan")
    [lost] = effect.lost
    assert lost.item_id == "note_lumen00002" and effect.highlight == {"note_lumen00001"}
    assert lost.why.startswith("merged into note_lumen00001 on ")
    assert lost.why.endswith("and note_lumen00001 is archived by this plan")
    assert lost.reason.endswith(f"and “{LUMEN}” is archived by this plan")


def test_archiving_one_of_two_pinned_notes_for_a_question_loses_only_that_one():
    plant_note("note_lumen00001", content=LUMEN)
    plant_note("note_lumen00002", content=LUMEN + " too")
    _pin("note_lumen00001", LUMEN)
    _pin("note_lumen00002", LUMEN)
    effect = plan_effect("notes", {"note_lumen00001": None}, gone="archived by this plan")
    assert [lost.item_id for lost in effect.lost] == ["note_lumen00001"]
    assert effect.summary == "This plan loses 1 of 2 pinned recalls"


@pytest.mark.usefixtures("two_pins")
def test_an_embedding_service_that_is_down_leaves_the_effect_unknown_not_empty(settings):
    settings.QQ_EMBEDDING_BACKEND = "openai"
    settings.TEI_URL = f"http://127.0.0.1:{free_port()}/v1"
    effect = plan_effect("notes", {"note_lumen00001": None}, gone="archived by this plan")
    assert effect.lost == [] and effect.error
    assert effect.summary.startswith("The effect of this plan on the pinned recalls is unknown")


def test_a_source_with_no_pins_costs_nothing_and_loses_nothing():
    plant_note("note_lumen00001", content=LUMEN)
    effect = plan_effect("notes", {"note_lumen00001": None})
    assert (effect.pins, effect.lost, effect.summary) == (0, [], "")


@pytest.mark.usefixtures("two_pins")
def test_the_summary_names_what_loses_the_pins():
    effect = plan_effect(
        "notes",
        {"note_tea0000001": None},
        gone="deleted at the next start",
        subject="The next start",
    )
    assert effect.summary == "The next start loses 1 of 2 pinned recalls"
    assert effect.lost[0].why == "deleted at the next start"
