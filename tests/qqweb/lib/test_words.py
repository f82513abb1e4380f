"""Keys, reasons and who did it, as a curator reads them (qqweb.lib.words)."""

import pytest

from qqweb.audit.registry import settled_actions, undoable_actions
from qqweb.jobs.registry import HIDDEN_JOBS, JOBS
from qqweb.lib.words import (
    ACTIONS,
    LABELS,
    action_words,
    actor_words,
    archive_reason_words,
    run_stats_words,
)


@pytest.mark.parametrize(
    ("label", "shown"),
    [
        ("user:admin", "admin"),
        ("token:ci (ada)", "API token ci (ada)"),
        ("job:facts-scan", "facts scan (automatic)"),
        ("job:schedule", "schedule (automatic)"),
        ("job:command:export_memory", "export memory (command line)"),
    ],
)
def test_who_did_it_reads_as_a_name_not_an_actor_label(label, shown):
    assert actor_words(label) == shown


def test_every_job_kind_has_a_label_of_words():
    for kind in [*JOBS, *HIDDEN_JOBS]:
        if "_" in kind:
            assert kind in LABELS, f"job kind {kind} has no label in qqweb.lib.words.LABELS"


def test_archive_reasons_read_as_words():
    assert archive_reason_words("low_importance") == "low importance"
    assert archive_reason_words("importance_decay_0.013") == "importance decayed to 0.013"
    assert archive_reason_words("importance_decay") == "importance decayed"
    # a reason the agent wrote as a sentence is its own words, the ids in it untouched
    merged = "Consolidated with note_0123456789ab (similarity: 0.95)"
    assert archive_reason_words(merged) == merged


def test_every_registered_action_has_a_label_of_words():
    registered = {*undoable_actions(), *settled_actions()}
    assert {"recall.pin", "note.archive", "fact.edit"} <= registered  # the registry is loaded
    for action in registered:
        assert action in ACTIONS, f"audit action {action} has no label in qqweb.lib.words"
    assert action_words("recall.pin") == "Pin a recall"
    assert action_words("note.archive") == "Archive a note"


def test_a_runs_stats_read_as_words_with_the_structured_ones_left_to_their_sections():
    stats = {
        "of_notes": 499,
        "archived": 0,
        "dry_run": True,
        "by_section": {"key_topics": 2, "people": 1},
        "pinned": ["note_a", "note_b"],
        "sample": [["note_a", "note_b", 0.97]],
        "left": [{"note_id": "note_a"}],
        "reasons": ["refused"],
        "plans": {"decay": [1, 2]},
    }
    assert run_stats_words(stats) == [
        ("of_notes", "notes looked at", "499"),
        ("archived", "archived", "0"),
        ("dry_run", "dry run", "yes"),
        ("by_section", "by section", "key topics: 2, people: 1"),
        ("pinned", "pinned", "note_a, note_b"),
    ]
    assert run_stats_words(None) == []
