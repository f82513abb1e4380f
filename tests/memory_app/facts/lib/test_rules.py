"""The agent's rules (W1 add test, W3 next-start cleanup, retrieval) on hand-built
vectors, without a database."""

from __future__ import annotations

from datetime import datetime

import numpy as np
import pytest

from memory_app.facts.lib.domain import MISSING
from memory_app.facts.lib.rules import (
    AddTest,
    add_check,
    bson_sort_key,
    cleanup_plan,
    cosine,
    retrieval_top,
)
from tests.memory_app.facts.lib.agent_simulator import agent_cleanup
from tests.memory_app.facts.lib.vectors import at_cosine, exactly_095, fact, gram_vectors, unit

CHAIN = [[1.0, 0.975, 0.941], [0.975, 1.0, 0.961], [0.941, 0.961, 1.0]]


def test_the_constructed_cosines_are_what_the_tests_say() -> None:
    assert cosine(unit(0), exactly_095()) == 0.95
    assert cosine(unit(0), at_cosine(0.9499)) == pytest.approx(0.9499, abs=1e-12)
    assert cosine(unit(0), at_cosine(0.9501)) == pytest.approx(0.9501, abs=1e-12)
    a, b, c = gram_vectors(CHAIN)
    assert cosine(a, b) == pytest.approx(0.975, abs=1e-12)
    assert cosine(b, c) == pytest.approx(0.961, abs=1e-12)
    assert cosine(a, c) == pytest.approx(0.941, abs=1e-12)


def test_it_saves_a_fact_at_09499() -> None:
    verdict = add_check(at_cosine(0.9499), [fact("old", unit(0))])
    assert not verdict.refused
    assert verdict.saved
    assert verdict.best_score == pytest.approx(0.9499)
    assert not verdict.borderline


def test_it_refuses_a_fact_at_exactly_095() -> None:
    verdict = add_check(exactly_095(), [fact("old", unit(0))])
    assert verdict.refused
    assert verdict.best_score == 0.95
    assert verdict.borderline


def test_it_refuses_a_fact_at_09501() -> None:
    old = fact("old", unit(0))
    verdict = add_check(at_cosine(0.9501), [fact("other", unit(5)), old])
    assert verdict.refused
    assert verdict.best is old
    assert not verdict.borderline


def test_adding_one_after_another_answers_as_add_check_on_what_was_saved() -> None:
    """An import tests each fact against the store and what it saved before it: 150
    random facts (past the first 64 rows), then near-copies of some, both ways equal."""
    rng = np.random.default_rng(7)
    store = [fact(f"s{i}", [float(x) for x in rng.normal(size=384)]) for i in range(40)]
    test, saved = AddTest(store), list(store)
    incoming = [[float(x) for x in rng.normal(size=384)] for _ in range(150)]
    incoming += [[x + 0.01 for x in v] for v in incoming[::10]]
    for i, vector in enumerate(incoming):
        expected, got = add_check(vector, saved), test.check(vector)
        assert (got.refused, got.best_score) == (expected.refused, expected.best_score)
        assert got.best is expected.best
        if not got.refused:
            new = fact(f"n{i}", vector)
            test.add(new)
            saved.append(new)
    assert len(saved) == 40 + 150  # the near-copies were refused


def test_the_add_fails_on_a_zero_vector_or_one_invalid_vector() -> None:
    assert add_check([0.0] * 384, [fact("old", unit(0))]).zero_vector
    broken = fact("broken", None)
    verdict = add_check(unit(3), [fact("old", unit(0)), broken])
    assert verdict.aborted_by == [broken]
    assert not verdict.saved


def test_cleanup_deletes_the_newer_at_095_and_above_only() -> None:
    anchor = fact("anchor", unit(0), 0)
    below = fact("below", at_cosine(0.9499, 0, 1), 1)
    exact = fact("exact", exactly_095(), 2)
    above = fact("above", at_cosine(0.9501, 0, 2), 3)
    plan = cleanup_plan([above, exact, below, anchor])
    assert {d.deleted.content for d in plan.deletions} == {"exact", "above"}
    assert all(d.anchor is anchor for d in plan.deletions)
    by_content = {d.deleted.content: d for d in plan.deletions}
    assert by_content["exact"].borderline
    assert not by_content["above"].borderline
    assert not plan.aborted


def test_a_pair_just_below_095_inside_the_band_is_listed_as_a_near_miss() -> None:
    old = fact("old", unit(0), 0)
    new = fact("new", at_cosine(0.95 - 5e-7), 1)
    plan = cleanup_plan([old, new])
    assert plan.deletions == []
    assert [(d.anchor, d.deleted) for d in plan.near_misses] == [(old, new)]
    assert plan.near_misses[0].borderline


def test_the_chain_keeps_a_and_c_when_a_is_oldest() -> None:
    a, b, c = gram_vectors(CHAIN)
    fa, fb, fc = fact("A", a, 0), fact("B", b, 1), fact("C", c, 2)
    plan = cleanup_plan([fc, fb, fa])
    assert [(d.anchor.content, d.deleted.content) for d in plan.deletions] == [("A", "B")]


def test_the_chain_keeps_only_b_when_b_is_oldest() -> None:
    a, b, c = gram_vectors(CHAIN)
    fa, fb, fc = fact("A", a, 1), fact("B", b, 0), fact("C", c, 2)
    plan = cleanup_plan([fa, fb, fc])
    assert sorted((d.anchor.content, d.deleted.content) for d in plan.deletions) == [
        ("B", "A"),
        ("B", "C"),
    ]


def test_a_marked_fact_is_no_anchor() -> None:
    """Greedy, not transitive: C is at 0.961 to B, but B is already marked by A."""
    a, b, c = gram_vectors(CHAIN)
    plan = cleanup_plan([fact("A", a, 0), fact("B", b, 1), fact("C", c, 2)])
    assert "C" not in {d.deleted.content for d in plan.deletions}


def test_equal_timestamps_are_flagged_as_a_tie() -> None:
    plan = cleanup_plan([fact("one", unit(0), 5), fact("two", at_cosine(0.99), 5)])
    assert len(plan.deletions) == 1
    assert plan.deletions[0].tie


def test_a_string_or_missing_timestamp_counts_as_older_than_every_date() -> None:
    dated = fact("dated", unit(0), 0)
    stringly = fact("string", at_cosine(0.99), timestamp="2020-01-01")
    plan = cleanup_plan([dated, stringly])
    assert [(d.anchor.content, d.deleted.content) for d in plan.deletions] == [("string", "dated")]
    assert bson_sort_key(MISSING) < bson_sort_key(3) < bson_sort_key("a")
    assert bson_sort_key("a") < bson_sort_key(datetime(1900, 1, 1))


def test_empty_zero_legacy_and_other_types_take_no_part() -> None:
    plan = cleanup_plan(
        [
            fact("old", unit(0), 0),
            fact("empty", [], 1),
            fact("zero", [0.0] * 384, 2),
            fact("legacy", MISSING, 3),
        ]
    )
    assert plan.considered == 1
    assert plan.deletions == []


def test_one_invalid_vector_aborts_the_whole_cleanup() -> None:
    short = fact("short", [1.0] * 1024, 9)
    plan = cleanup_plan([fact("a", unit(0), 0), fact("b", unit(0), 1), short])
    assert plan.aborted_by == [short]
    assert len(plan.deletions) == 1  # what it would delete once the vector is fixed


def test_integer_vectors_work_as_in_the_agent() -> None:
    ints = [0] * 384
    ints[0] = 3
    plan = cleanup_plan([fact("a", unit(0), 0), fact("b", ints, 1)])
    assert [d.deleted.content for d in plan.deletions] == ["b"]


def test_retrieval_is_the_top_3_with_no_floor_in_the_agents_shape() -> None:
    facts = [
        fact("far", unit(7), 0),
        fact("near", at_cosine(0.5), 1),
        fact("nearest", at_cosine(0.9), 2),
        fact("orthogonal", unit(9), 3),
    ]
    top = retrieval_top(unit(0), facts)
    assert [r.fact.content for r in top.results] == ["nearest", "near", "far"]
    assert top.results[2].score == 0.0  # no minimum score
    hex_id = facts[2].hex_id
    assert top.injected_lines[0] == f"- {{'_id': '{hex_id}', 'content': 'nearest'}}"


def test_retrieval_returns_nothing_when_one_vector_is_invalid() -> None:
    top = retrieval_top(unit(0), [fact("a", unit(0)), fact("b", ["x"] * 384)])
    assert top.injected == []


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_plan_equals_the_agents_pairwise_loop_on_clustered_data(seed: int) -> None:
    """Clusters tight enough that many pairs sit around 0.95, chains included."""
    import numpy as np

    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(12, 384))
    vectors = centres[rng.integers(0, 12, 400)] + rng.normal(scale=0.23, size=(400, 384))
    facts = [
        fact(f"f{i}", [float(x) for x in v], minutes=int(rng.integers(0, 60)))
        for i, v in enumerate(vectors)
    ]
    plan = cleanup_plan(facts, block_rows=64)
    assert plan.deleted_ids == agent_cleanup(facts)
    assert len(plan.deletions) > 20
