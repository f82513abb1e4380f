"""What makes a document from outside unsafe to write as data, in words naming where."""

import pytest

from qqweb.lib.mongo.safe_values import stored_value_problem


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
