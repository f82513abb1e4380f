import pytest

from memory_app.notes.lib import CoreNotesManager, InvalidNote, NotesManager


def test_core_md_is_created_from_the_agents_template(tmp_path):
    core = CoreNotesManager(tmp_path)
    core.ensure_exists()
    text = core.path.read_text()
    assert text.startswith("# Core Memory\n\nLast updated: ")
    assert "These are protected notes that will never be automatically forgotten." in text
    assert (
        "## Identity\n<!-- User's personal information: name, location, role, preferences -->\n"
        in text
    )
    assert [line for line in text.splitlines() if line.startswith("## ")] == [
        "## Identity",
        "## Projects",
        "## Relationships",
        "## System",
    ]


def test_notes_md_has_the_five_sections_in_order(tmp_path):
    notes = NotesManager(tmp_path)
    notes.ensure_exists()
    text = notes.path.read_text()
    assert text.startswith("# QQ Memory Notes\n\nLast updated: ")
    assert [line for line in text.splitlines() if line.startswith("## ")] == [
        "## Key Topics",
        "## Important Facts",
        "## People & Entities",
        "## Ongoing Threads",
        "## File Knowledge",
    ]


def test_new_items_go_first_under_their_heading(tmp_path):
    core = CoreNotesManager(tmp_path)
    assert core.add_core("I live in Lisbon", "Identity")
    assert core.add_core("My name is Dana", "Identity")
    assert core.get_all_items()["Identity"] == ["My name is Dana", "I live in Lisbon"]
    lines = core.path.read_text().splitlines()
    heading = lines.index("## Identity")
    assert lines[heading + 1].startswith("<!--")
    assert lines[heading + 2] == "- My name is Dana"


def test_an_item_that_is_there_already_is_not_added_twice(tmp_path):
    notes = NotesManager(tmp_path)
    assert notes.add_note("Key Topics", "Graph RAG")
    assert not notes.add_note("Key Topics", "graph rag")
    assert notes.get_all_items()["Key Topics"] == ["Graph RAG"]


def test_a_file_the_agent_truncated_is_recreated_from_the_template(tmp_path):
    notes = NotesManager(tmp_path)
    notes.path.write_text("")
    notes.add_note("Ongoing Threads", "Waiting on Priya")
    text = notes.path.read_text()
    assert text.startswith("# QQ Memory Notes")
    assert "## Ongoing Threads\n- Waiting on Priya\n" in text


def test_bullets_that_would_break_the_agents_parser_are_refused(tmp_path):
    notes = NotesManager(tmp_path)
    with pytest.raises(InvalidNote, match="Last updated"):
        notes.add_note("Key Topics", "Last updated: never")
    with pytest.raises(InvalidNote, match="section"):
        notes.add_note("Random", "x")
    assert not notes.path.exists()


def test_remove_and_replace_touch_only_the_exact_item(tmp_path):
    notes = NotesManager(tmp_path)
    notes.add_note("Key Topics", "Graph RAG")
    notes.add_note("Key Topics", "Graph RAG for code")
    notes.add_note("Important Facts", "Graph RAG needs Neo4j")
    assert notes.remove_item("Key Topics", "graph rag")
    assert notes.get_all_items()["Key Topics"] == ["Graph RAG for code"]
    assert notes.get_all_items()["Important Facts"] == ["Graph RAG needs Neo4j"]
    assert notes.replace_item("Key Topics", "Graph RAG for code", "GraphRAG for code search")
    assert notes.get_all_items()["Key Topics"] == ["GraphRAG for code search"]
    assert not notes.remove_item("Key Topics", "missing")


@pytest.mark.parametrize(
    ("content", "category"),
    [
        ("My name is Dana", "Identity"),
        ("Our project tidepool runs k3s", "Projects"),
        ("I'm building Lumen", "Identity"),  # "i'm" is an identity phrase, and it comes first
        ("Priya is a colleague", "Relationships"),
        ("The GPU is an RTX 4090", "System"),
        ("Lumen uses MongoDB", ""),
    ],
)
def test_core_candidates_follow_the_agents_patterns(content, category):
    assert CoreNotesManager.is_core_candidate(content) == (bool(category), category)


def test_promotion_is_suggested_only_for_important_notes(tmp_path):
    core = CoreNotesManager(tmp_path)
    assert core.suggest_promotion("My name is Dana", 0.9) == "Identity"
    assert core.suggest_promotion("My name is Dana", 0.5) is None
