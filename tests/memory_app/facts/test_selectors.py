"""The facts pages' reads of a pair: the values its two texts differ in (the agent's next
start would delete a correction, not a copy), one pair's row, and the flags of the
possible contradictions. Planted exactly as the agent writes (hand-built vectors)."""

from __future__ import annotations

import pytest

from memory_app.facts import selectors
from memory_app.facts.lib import FactsStore
from memory_app.facts.models import JudgedPair
from tests.memory_app.facts.lib.vectors import at_cosine, unit
from tests.memory_app.facts.planted import doc, plant


def _kinds_and_values(older: str, newer: str) -> list[tuple[str, tuple[str, ...], tuple[str, ...]]]:
    return [(c.kind, c.left, c.right) for c in selectors.pair_differences(older, newer)]


def test_a_port_a_version_an_ip_and_an_id_are_told_with_both_values() -> None:
    assert _kinds_and_values(
        "The TTS-Provider service runs on port 9000.", "The TTS-Provider service runs on port 9100."
    ) == [("id", ("port 9000",), ("port 9100",))]
    assert _kinds_and_values(
        "Lily uses Gemini 2.0 Flash as her model.", "Lily uses Gemini 2.5 Flash as her model."
    ) == [("version", ("Gemini 2.0",), ("Gemini 2.5",))]
    assert _kinds_and_values(
        "The Minecraft server IP is 192.168.1.20.", "The Minecraft server IP is 192.168.1.25."
    ) == [("id", ("192.168.1.20",), ("192.168.1.25",))]
    assert _kinds_and_values(
        "The master's Discord ID is 284716395028371456.",
        "The master's Discord ID is 284716395028371457.",
    ) == [("id", ("284716395028371456",), ("284716395028371457",))]


def test_a_negation_is_a_contradiction() -> None:
    [change] = selectors.pair_differences(
        "The master likes coffee.", "The master does not like coffee."
    )
    assert change.kind == "negation" and change.contradiction


def test_a_copy_or_a_rewording_has_no_flag() -> None:
    assert (
        selectors.pair_differences(
            "The master drinks green tea every morning.",
            "Every morning the master drinks green tea.",
        )
        == ()
    )


@pytest.mark.django_db  # the judge's verdicts are kept by pair of texts
def test_the_next_start_review_flags_the_pair_that_changes_a_value(
    facts_store: FactsStore,
) -> None:
    docs = plant(facts_store)
    review = selectors.next_start_review()
    [row] = review.rows
    assert row.pair.deleted.hex_id == str(docs["new_port"]["_id"])
    assert row.is_update
    assert [(c.kind, c.left, c.right) for c in row.changes] == [("number", ("9000",), ("9100",))]
    assert review.plan.deleted_ids == {str(docs["new_port"]["_id"])}
    assert row.verdict is not None and row.verdict.kind == "update"
    assert "9000 → 9100" in row.verdict.words


@pytest.mark.django_db
def test_a_pair_is_judged_once_and_its_verdict_kept_for_the_next_views(
    facts_store: FactsStore,
) -> None:
    plant(facts_store)
    [first] = selectors.next_start_review().rows
    assert JudgedPair.objects.count() == 1
    kept = JudgedPair.objects.get()
    JudgedPair.objects.update(judged=[1.0, 0.0, 0.0, 0.0, 0.0, 0.0])  # a view reads it back
    [again] = selectors.next_start_review().rows
    assert first.verdict is not None and first.verdict.p_same == kept.judged[0]
    assert again.verdict is not None and again.verdict.p_same == 1.0
    assert JudgedPair.objects.count() == 1


@pytest.mark.django_db  # the judge's verdicts are kept by pair of texts
def test_one_row_is_found_while_the_plan_holds_it_and_none_after(
    facts_store: FactsStore,
) -> None:
    docs = plant(facts_store)
    old, new = str(docs["old_port"]["_id"]), str(docs["new_port"]["_id"])
    row = selectors.next_start_row(anchor_id=old, deleted_id=new)
    assert row is not None and row.id == f"pair-{old}-{new}"
    assert selectors.next_start_row(anchor_id=new, deleted_id=old) is None
    facts_store.collection.delete_one({"_id": docs["new_port"]["_id"]})
    assert selectors.next_start_row(anchor_id=old, deleted_id=new) is None


def test_a_possible_contradiction_carries_its_flags(facts_store: FactsStore, db: None) -> None:
    facts_store.collection.insert_many(
        [
            doc("The backup runs at 02:00 on port 8080.", unit(0), 0),
            doc("The backup runs at 02:00 on port 8443.", at_cosine(0.9), 10),
            doc("The user likes tea.", unit(5), 20),
        ]
    )
    [row] = selectors.contradictions()
    assert [(c.kind, c.left, c.right) for c in row.changes] == [
        ("id", ("port 8080",), ("port 8443",))
    ]
    assert row.judged is not None
    assert row.judged.words == "possible update: port 8080 → 8443"
