"""Possible updates: near-duplicate texts that differ in a date, number, version, id or
name (pure functions, no database)."""

import pytest

from qqweb.lib.difference_values import tokens
from qqweb.lib.differences import Difference, differences


@pytest.mark.parametrize(
    ("left", "right", "kind", "before", "after"),
    [
        (
            "Deadline for the Lumen beta is 2027-02-01",
            "Deadline for the Lumen beta is 2027-01-10",
            "date",
            ("2027-02-01",),
            ("2027-01-10",),
        ),
        (
            "The launch is on 3 March 2027",
            "The launch is on March 17, 2027",
            "date",
            ("2027-03-03",),
            ("2027-03-17",),
        ),
        ("Lumen runs 4 workers", "Lumen runs 8 workers", "number", ("4",), ("8",)),
        ("The budget is 1,200 EUR", "The budget is 1,500 EUR", "number", ("1200",), ("1500",)),
        (
            "Release v1.2.0 ships Friday",
            "Release v1.3.0 ships Friday",
            "version",
            ("1.2.0",),
            ("1.3.0",),
        ),
        (
            "Deploy commit a1b2c3d to prod",
            "Deploy commit 9f8e7d6 to prod",
            "id",
            ("a1b2c3d",),
            ("9f8e7d6",),
        ),
        (
            "The bug is tracked in LUM-42",
            "The bug is tracked in LUM-57",
            "id",
            ("lum-42",),
            ("lum-57",),
        ),
        ("The NAS is at 10.0.0.5", "The NAS is at 10.0.0.7", "id", ("10.0.0.5",), ("10.0.0.7",)),
        ("Tidepool is led by Priya", "Tidepool is led by Dana", "name", ("Priya",), ("Dana",)),
        ("Priya leads Tidepool", "Dana leads Tidepool", "name", ("Priya",), ("Dana",)),
    ],
)
def test_texts_that_differ_in_a_value_are_a_possible_update(left, right, kind, before, after):
    assert differences(left, right) == (Difference(kind, before, after),)


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("Lumen uses MongoDB", "Lumen uses MongoDB for vector search"),  # a detail added
        ("Lumen uses MongoDB", "lumen uses mongodb"),  # case only
        ("The launch is on Feb 1, 2027", "The launch is on 1 February 2027"),  # same date
        ("The budget is 1,200 EUR", "The budget is 1200 EUR"),  # same number
        ("The beta ships in 2027", "The beta ships on 2027-02-01"),  # more precise, not other
        ("Priya prefers tea", "Tea is what Priya prefers"),  # reworded
        ("We moved the sync to Fridays", "The sync moved to Fridays"),  # openers are not names
        ("", ""),
    ],
)
def test_rewordings_and_added_details_are_not_updates(left, right):
    assert differences(left, right) == ()


def test_several_kinds_are_reported_in_order():
    changes = differences("Priya ships v2.0.0 on 2027-01-10", "Dana ships v2.1.0 on 2027-02-01")
    assert [c.kind for c in changes] == ["date", "version", "name"]


def test_a_date_is_not_also_read_as_numbers():
    found = tokens("Due 2027-02-01, build 1.4.2, ticket LUM-9")
    assert found["number"] == {}
    assert set(found["date"]) == {"2027-02-01"}
    assert set(found["version"]) == {"1.4.2"}
    assert set(found["id"]) == {"lum-9"}


def test_a_digit_inside_a_word_is_part_of_a_name_not_a_number():
    assert tokens("Hana introduced the user to Neo4j and k3s")["number"] == {}
    assert differences("Hana introduced us to Neo4j", "Hana introduced us to FastAPI") == (
        Difference("name", ("Neo4j",), ("FastAPI",)),
    )
