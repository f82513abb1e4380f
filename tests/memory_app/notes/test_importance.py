from datetime import datetime, timedelta

import pytest

from memory_app.notes.lib.importance import (
    BASE_FIELD,
    DECAYED_FIELD,
    ImportanceScorer,
    ScoredNote,
    decay_write_plan,
)

NOW = datetime(2026, 11, 22, 12, 0)
scorer = ImportanceScorer()


@pytest.mark.parametrize(
    ("content", "section", "hint", "expected"),
    [
        ("Lumen stores notes in MongoDB for later", "Key Topics", None, 0.3),
        ("My name is Dana and I live in Lisbon", "Key Topics", None, 1.0),
        ("I work at Northwind on the ingest team", "Key Topics", None, 0.7),
        ("Release 2026-12-15 of version 2.4 at https://x.org", "Key Topics", None, 0.55),
        ("Priya Raman reviews pull requests", "People & Entities", None, 0.5),
        ("config.py holds retry settings", "File Knowledge", None, 0.2),
        ("short", "Important Facts", None, 0.3),  # 0.3 + 0.1 - 0.1
        ("Lumen stores notes in MongoDB for later", "Key Topics", "high", 0.7),
        ("We are building our app on Django", "Ongoing Threads", "low", 0.8),
    ],
)
def test_score_note_adds_each_matching_bonus_once(content, section, hint, expected):
    assert scorer.score_note(content, section, hint) == pytest.approx(expected)


def test_long_notes_lose_a_little_and_scores_are_clamped():
    assert scorer.score_note("x" * 501, "Key Topics") == pytest.approx(0.25)
    assert (
        scorer.score_note(
            "my name is Dana, I'm in Lisbon, my email, working on it", "People & Entities", "core"
        )
        == 1.0
    )


@pytest.mark.parametrize(
    ("score", "level"), [(0.8, "core"), (0.5, "high"), (0.3, "medium"), (0.29, "low")]
)
def test_classes_follow_the_thresholds(score, level):
    from memory_app.notes.lib.importance import classify

    assert classify(score) == level


def test_decay_follows_the_contract_formula():
    note = ScoredNote(
        "x",
        "Key Topics",
        importance=0.6,
        access_count=4,
        created_at=NOW - timedelta(days=50),
        last_accessed=NOW - timedelta(days=10),
        decay_rate=0.01,
    )
    # (0.6 - 10*0.01 + 0.2) / (1 + 0.5)
    assert scorer.decay_importance(note, NOW) == pytest.approx(0.7 / 1.5)


def test_a_never_accessed_note_goes_stale_since_creation():
    note = ScoredNote("x", None, importance=0.5, created_at=NOW - timedelta(days=30))
    assert scorer.decay_importance(note, NOW) == pytest.approx((0.5 - 0.3) / 1.3)


def test_candidates_and_retrieval_use_the_seed_thresholds():
    old = ScoredNote("x", None, importance=0.1, created_at=NOW - timedelta(days=200))
    star = ScoredNote("y", None, importance=0.9, access_count=3, created_at=NOW)
    assert scorer.get_archival_candidates([old, star], current_time=NOW) == [old]
    assert scorer.get_promotion_candidates([old, star]) == [star]
    assert not scorer.should_retrieve(old, current_time=NOW)
    assert scorer.should_retrieve(star, current_time=NOW)


def _doc(**extra):
    return {
        "note_id": "note_000000000001",
        "content": "x",
        "importance": 0.8,
        "access_count": 1,
        "created_at": NOW - timedelta(days=20),
        "last_accessed": None,
        "decay_rate": 0.01,
        **extra,
    }


def _apply(doc, plan):
    return {
        **doc,
        "importance": plan.new_importance,
        BASE_FIELD: plan.base,
        DECAYED_FIELD: plan.new_importance,
    }


def test_a_second_decay_pass_changes_nothing():
    once = _apply(_doc(), decay_write_plan(_doc(), NOW))
    second = decay_write_plan(once, NOW)
    assert not second.changes
    assert second.new_importance == once["importance"]


def test_daily_passes_end_where_one_pass_would():
    doc = _doc()
    for day in range(1, 31):
        doc = _apply(doc, decay_write_plan(doc, NOW + timedelta(days=day)))
    single = decay_write_plan(_doc(), NOW + timedelta(days=30))
    assert doc["importance"] == pytest.approx(single.new_importance)


def test_an_importance_the_agent_changed_becomes_the_new_base():
    decayed = _apply(_doc(), decay_write_plan(_doc(), NOW))
    boosted = {**decayed, "importance": 0.95}  # the agent re-scored the note
    plan = decay_write_plan(boosted, NOW)
    assert plan.base == 0.95
    assert plan.expected_importance == 0.95
