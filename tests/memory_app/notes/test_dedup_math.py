from datetime import datetime

import numpy as np

from memory_app.notes.lib.dedup.maths import choose_primary, newer_and_older, plan_merge
from memory_app.notes.lib.domain import Note
from qqweb.lib.vectors import similar_pairs


def brute_force(vectors, threshold):
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    sims = unit @ unit.T
    return {
        (i, j)
        for i in range(len(vectors))
        for j in range(i + 1, len(vectors))
        if sims[i, j] >= threshold
    }


def test_blocked_search_finds_exactly_the_pairs_of_brute_force():
    rng = np.random.default_rng(1)
    base = rng.normal(size=(60, 24))
    vectors = np.vstack([base, base[:20] + rng.normal(scale=0.05, size=(20, 24))])
    i, j, sims = similar_pairs(vectors, 0.85, block=7)  # blocks that cut through the data
    assert set(zip(i.tolist(), j.tolist(), strict=True)) == brute_force(vectors, 0.85)
    assert len(i) >= 20 and np.all(sims >= 0.85) and np.all(i < j)


def test_no_pairs_below_the_threshold():
    i, _, _ = similar_pairs(np.eye(5), 0.5)
    assert len(i) == 0


def test_the_higher_importance_note_is_primary():
    a = Note.from_document({"note_id": "a", "importance": 0.4})
    b = Note.from_document({"note_id": "b", "importance": 0.6})
    assert choose_primary(a, b) == (b, a)


def test_simple_merge_follows_the_contract():
    primary = Note.from_document(
        {
            "note_id": "p",
            "content": "Lumen uses MongoDB",
            "importance": 0.98,
            "access_count": 2,
            "decay_rate": 0.02,
            "created_at": datetime(2026, 3, 1),
            "last_accessed": datetime(2026, 5, 1),
            "source": {"source_id": "p"},
        }
    )
    secondary = Note.from_document(
        {
            "note_id": "s",
            "content": "Lumen relies on MongoDB",
            "importance": 0.5,
            "access_count": 3,
            "decay_rate": 0.01,
            "created_at": datetime(2026, 1, 1),
            "last_accessed": datetime(2026, 6, 1),
            "source": {"source_id": "s"},
        }
    )
    plan = plan_merge(primary, secondary, 0.9312)
    assert plan.set_fields == {
        "importance": 1.0,
        "decay_rate": 0.01,
        "created_at": datetime(2026, 1, 1),
        "last_accessed": datetime(2026, 6, 1),
    }
    assert plan.inc_access == 3
    assert plan.pushed_source == {"source_id": "s"}
    assert plan.archive_reason == "Consolidated with p (similarity: 0.93)"
    assert not plan.content_changed


def test_the_newer_note_is_the_one_written_later():
    old = Note.from_document(
        {"created_at": datetime(2026, 1, 1), "updated_at": datetime(2026, 6, 1)}
    )
    new = Note.from_document(
        {"created_at": datetime(2026, 3, 1), "updated_at": datetime(2026, 3, 1)}
    )
    assert newer_and_older(old, new) == (new, old)
    assert newer_and_older(new, old) == (new, old)


def test_with_the_same_creation_time_the_later_update_is_newer_and_no_dates_tell_nothing():
    a = Note.from_document({"created_at": datetime(2026, 1, 1), "updated_at": datetime(2026, 2, 1)})
    b = Note.from_document({"created_at": datetime(2026, 1, 1), "updated_at": datetime(2026, 4, 1)})
    assert newer_and_older(a, b) == (b, a)
    no_dates, created = Note.from_document({}), Note.from_document({"created_at": a.created_at})
    assert newer_and_older(no_dates, created) is None
    assert newer_and_older(a, Note.from_document(a.to_document())) is None
