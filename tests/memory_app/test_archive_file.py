"""archive.jsonl as a file: appends after the agent's torn lines, lines kept byte for byte."""

import json

from memory_app.memory import ArchiveManager
from memory_app.memory.archive import local_naive_iso


def agent_line(note_id: str, content: str = "", **extra) -> dict:
    return {
        "note_id": note_id,
        "content": content or f"content of {note_id}",
        "section": "Key Topics",
        "importance": 0.02,
        "reason": "low_importance",
        "archived_at": local_naive_iso(),
        "original_created_at": None,
        "access_count": 0,
        "metadata": {},
        **extra,
    }


def test_an_append_after_a_torn_agent_line_starts_a_line_of_its_own(tmp_path):
    archive = ArchiveManager(tmp_path)
    whole = json.dumps(agent_line("note_00000000000a"))
    torn = json.dumps(agent_line("note_00000000000b"))[:40]  # the agent's write, cut off
    archive.archive_file.write_text(f"{whole}\n{torn}")

    ours = agent_line("note_00000000000c")
    archive.append_entries([ours])

    assert archive.archive_file.read_text() == f"{whole}\n{torn}\n{json.dumps(ours)}\n"
    read = archive.read()
    assert [e["note_id"] for e in read.entries] == ["note_00000000000a", "note_00000000000c"]
    assert [(bad.number, bad.raw) for bad in read.bad_lines] == [(2, torn)]
    assert read.bad_lines[0].error.startswith("not JSON")


def test_an_append_to_a_file_that_ends_with_its_newline_adds_no_blank_line(tmp_path):
    archive = ArchiveManager(tmp_path)
    archive.append_entries([agent_line("note_00000000000a")])
    archive.append_entries([agent_line("note_00000000000b")])
    assert b"\n\n" not in archive.archive_file.read_bytes()
    assert len(archive.archive_file.read_bytes().split(b"\n")) == 3


def test_a_rewrite_keeps_unreadable_lines_byte_for_byte(tmp_path):
    archive = ArchiveManager(tmp_path)
    old = agent_line("note_00000000000a", archived_at="2020-01-01T10:00:00.123456")
    kept = agent_line("note_00000000000b")
    not_utf8 = b'{"note_id": "note_00000000000c", "content": "caf\xc3'  # torn inside an "\xe9"
    archive.archive_file.write_bytes(
        json.dumps(old).encode() + b"\n" + not_utf8 + b"\n" + json.dumps(kept).encode() + b"\n"
    )
    [bad] = archive.read().bad_lines
    assert (bad.number, bad.error) == (2, "not UTF-8")

    assert archive.purge_old_archives(90) == 1

    assert archive.archive_file.read_bytes() == not_utf8 + b"\n" + json.dumps(kept).encode() + b"\n"


def test_a_note_holding_a_unicode_line_separator_is_one_line(tmp_path):
    archive = ArchiveManager(tmp_path)
    content = "first\u2028second\x85third"
    archive.append_entries([agent_line("note_00000000000a", content)])
    read = archive.read()
    assert [e["content"] for e in read.entries] == [content]
    assert read.bad_lines == []
