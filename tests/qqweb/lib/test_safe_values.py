"""What makes a document from outside unsafe to write as data, in words naming where."""

from datetime import datetime, timedelta, timezone

import pytest

from qqweb.lib.mongo.safe_values import datetime_problem, stored_value_problem


@pytest.mark.parametrize(
    ("document", "reason"),
    [
        ({"$where": "1"}, "the document has the key '$where'"),
        ({"note_id": {"$ne": None}}, "note_id has the key '$ne'"),
        ({"source_history": [{"a": {"b.c": 1}}]}, "source_history[0].a has the key 'b.c'"),
        ({"metadata": {"k\x00": 1}}, "metadata has a key holding a NUL character"),
        ({"importance": float("nan")}, "importance is nan, not a finite number"),
        ({"embedding": [0.1, float("inf")]}, "embedding holds a number that is not finite"),
        ({"access_count": 2**70}, "access_count is an integer beyond 64 bits"),
        ({"embedding": [0.5, 2**70]}, "embedding[1] is an integer beyond 64 bits"),
        ({"content": "a\ud800"}, "content holds a lone UTF-16 surrogate"),
        ({"metadata": {"k": "a\x00b"}}, "metadata.k holds a NUL character"),
        ({"created_at": datetime(1, 1, 1)}, "created_at 0001-01-01T00:00:00 is out of the range"),
        ({"x": [datetime(9999, 12, 31, 12)]}, "x[0] 9999-12-31T12:00:00 is out of the range"),
        (
            {"x": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]},
            "nests deeper",
        ),
    ],
)
def test_a_document_unsafe_to_store_is_refused_naming_where(document, reason):
    assert reason in stored_value_problem(document)


def test_an_agents_note_is_safe_to_store():
    note = {
        "note_id": "note_0123456789ab",
        "embedding": [0.1] * 384,
        "metadata": {"restored_at": "2024-01-01T00:00:00"},
        "source_history": [{"source_type": "file", "line_start": 3}],
        "importance": 1,
        "content": "Ada lives in Oslo. ✓",
    }
    assert stored_value_problem(note) == ""


@pytest.mark.parametrize(
    "value",
    [
        datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=5))),
        datetime(9999, 12, 31, 23, tzinfo=timezone(timedelta(hours=-5))),
        datetime(1, 1, 1, 12),
    ],
)
def test_a_date_no_time_zone_can_show_is_out_of_range(value):
    assert "is out of the range of dates (0001-01-02 to 9999-12-30 UTC)" in datetime_problem(value)


def test_a_date_a_day_inside_the_range_is_taken_in_any_zone():
    assert datetime_problem(datetime(1, 1, 2, tzinfo=timezone(timedelta(hours=-14)))) == ""
    assert datetime_problem(datetime(2024, 5, 1, 10, 11, 12)) == ""
