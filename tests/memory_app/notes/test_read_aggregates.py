"""The Overview's aggregates from the read model's columns (pure, no store): the edges the
planted data of test_read_model.py does not reach."""

from datetime import datetime, timedelta

from memory_app.notes.lib.documents import effective_importance
from memory_app.notes.lib.replica.aggregates import read_pictures, section_counts
from memory_app.notes.lib.replica.read_model import ReadModel

NOW = datetime(2026, 11, 23, 12)


def model_of(*docs):
    model = ReadModel()
    for i, extra in enumerate(docs):
        model.put({"note_id": f"note_{i:012x}", "importance": 0.5, "created_at": NOW, **extra})
    return model


def test_no_section_and_an_empty_one_are_counted_as_one_no_section():
    model = model_of({"section": "Key Topics"}, {"section": ""}, {}, {"section": "Key Topics"})
    assert section_counts(model) == {"Key Topics": 2, None: 2}


def test_a_forgotten_note_leaves_every_count():
    model = model_of({"section": "Key Topics", "source": {"source_type": "file"}}, {})
    model.forget("note_000000000000")
    pictures = read_pictures(model, now=NOW, threshold=0.9)
    assert section_counts(model) == {None: 1}
    assert pictures.total == 1 and pictures.would_archive == 1
    assert pictures.by_source_type == [("(no source)", 1)]


def test_sources_with_as_many_notes_are_listed_by_name_and_files_need_a_path():
    model = model_of(
        {"source": {"source_type": "file", "file_path": "b.md"}},
        {"source": {"source_type": "conversation", "file_path": ""}},
        {"source": {"source_type": "file", "file_path": "a.md"}},
        {"source": {"source_type": "conversation"}},
    )
    pictures = read_pictures(model, now=NOW, threshold=0.1)
    assert pictures.by_source_type == [("conversation", 2), ("file", 2)]
    assert pictures.top_files == [("a.md", 1), ("b.md", 1)]


def test_notes_per_week_leave_out_undated_future_and_older_notes():
    model = model_of(
        {"created_at": NOW - timedelta(days=6, hours=23)},  # this week
        {"created_at": NOW - timedelta(days=7)},  # last week
        {"created_at": None},
        {"created_at": NOW + timedelta(days=1)},
        {"created_at": NOW - timedelta(weeks=26)},  # just outside 26 weeks
    )
    weeks = read_pictures(model, now=NOW, threshold=0.1).per_week
    assert len(weeks) == 26 and weeks[-1] == 1 and weeks[-2] == 1 and sum(weeks) == 2


def test_decay_at_later_dates_is_what_the_agent_computes_then_undated_and_unread_notes_too():
    docs = [
        {
            "importance": 0.3 + i / 100,
            "access_count": i % 7,
            "decay_rate": [0.01, 0.02][i % 2],
            "created_at": None if i % 5 == 0 else NOW - timedelta(days=i, hours=i % 24),
            "last_accessed": None if i % 3 else NOW - timedelta(days=i // 2, hours=5),
        }
        for i in range(60)
    ]
    model = model_of(*docs)
    dates = [NOW + timedelta(days=d) for d in (0, 7, 30, 90)]
    for date, values in zip(dates, model.effective_importance_at(dates), strict=True):
        expected = [effective_importance(d, date) for d in docs]  # in the rows' order
        assert values.tolist() == expected
