"""Rule 3 without a database: what a write makes the agent delete, and what qqweb
archives so that no new deletion is left (hand-built vectors with exact cosines)."""

from __future__ import annotations

from dataclasses import replace

from memory_app.facts.lib.guard import write_plan
from tests.memory_app.facts.lib.vectors import at_cosine, fact, gram_vectors, unit


def test_a_write_far_from_everything_archives_nothing() -> None:
    old = fact("old", unit(0), 0)
    new = fact("new", unit(1), 5)
    plan = write_plan([old], [old, new], {new.hex_id})
    assert plan.archive_ids == [] and plan.add is not None and not plan.add.refused


def test_a_new_text_at_095_to_an_older_fact_archives_the_older_so_it_survives() -> None:
    old = fact("old", unit(0), 0)
    new = fact("new", at_cosine(0.95), 5)
    plan = write_plan([old], [old, new], {new.hex_id})
    assert plan.add is not None and plan.add.refused
    assert plan.archive_ids == [old.hex_id] and plan.resolutions[0].keeps_written
    assert plan.new_deletions == []


def test_just_below_095_archives_nothing() -> None:
    old = fact("old", unit(0), 0)
    new = fact("new", at_cosine(0.9499), 5)
    assert write_plan([old], [old, new], {new.hex_id}).archive_ids == []


def test_an_edited_older_fact_archives_the_newer_one_it_would_delete() -> None:
    old = fact("old", unit(2), 0)
    newer = fact("newer", unit(0), 5)
    edited = replace(old, content="edited", content_embedding=at_cosine(0.9501))
    plan = write_plan([old, newer], [edited, newer], {old.hex_id})
    assert plan.archive_ids == [newer.hex_id] and not plan.resolutions[0].keeps_written


def test_removing_a_chain_anchor_archives_what_it_would_let_go() -> None:
    va, vb, vc = gram_vectors([[1, 0.97, 0.94], [0.97, 1, 0.96], [0.94, 0.96, 1]])
    a, b, c = fact("a", va, 0), fact("b", vb, 1), fact("c", vc, 2)
    plan = write_plan([a, b, c], [b, c], set())
    assert plan.before.deleted_ids == {b.hex_id}
    assert plan.archive_ids == [c.hex_id]
    assert plan.remaining.deletions == []


def test_deletions_planned_before_the_write_are_left_to_the_review() -> None:
    old, dup = fact("old", unit(0), 0), fact("dup", unit(0), 1)
    other = fact("other", unit(5), 2)
    plan = write_plan([old, dup, other], [old, dup], set())
    assert plan.archive_ids == [] and plan.remaining.deleted_ids == {dup.hex_id}


def test_keep_newer_text_is_not_refused_for_the_fact_it_archives() -> None:
    older = fact("older", unit(0), 0)
    newer = fact("newer", at_cosine(0.97), 5)
    taken = replace(older, content="newer", content_embedding=newer.content_embedding)
    plan = write_plan([older, newer], [taken], {older.hex_id})
    assert plan.add is not None and not plan.add.refused  # not "1.000000 to the newer"


def test_keep_newer_text_is_refused_for_a_third_fact_it_keeps() -> None:
    older = fact("older", unit(0), 0)
    newer = fact("newer", at_cosine(0.97), 5)
    third = fact("third", at_cosine(0.97), 6)  # the newer text, written again later
    taken = replace(older, content="newer", content_embedding=newer.content_embedding)
    plan = write_plan([older, newer, third], [taken, third], {older.hex_id})
    assert plan.add is not None and plan.add.refused and plan.add.best == third


def test_a_text_the_agent_would_refuse_says_which_value_it_changes() -> None:
    old = replace(fact("old", unit(0), 0), content="The Minecraft server listens on port 9000")
    new = replace(
        fact("new", at_cosine(0.97), 5), content="The Minecraft server listens on port 9100"
    )
    plan = write_plan([old], [old, new], {new.hex_id})
    assert plan.add is not None and plan.add.refused
    [change] = plan.add_changes
    assert (change.kind, change.left, change.right) == ("id", ("port 9000",), ("port 9100",))
    assert not plan.add_contradiction
    assert [(c.left, c.right) for c in plan.resolutions[0].changes] == [
        (("port 9000",), ("port 9100",))
    ]


def test_a_copy_the_agent_would_refuse_shows_no_change_and_a_negation_a_contradiction() -> None:
    old = replace(fact("old", unit(0), 0), content="Dana prefers dark mode in the editor")
    copy = replace(fact("copy", at_cosine(0.99), 5), content="Dana prefers dark mode in the editor")
    assert write_plan([old], [old, copy], {copy.hex_id}).add_changes == ()
    negated = replace(
        fact("neg", at_cosine(0.96), 5), content="Dana does not prefer dark mode in the editor"
    )
    plan = write_plan([old], [old, negated], {negated.hex_id})
    assert plan.add_contradiction and plan.resolutions[0].contradiction
