"""archive.jsonl as a file: appends after the agent's torn lines, lines kept byte for byte."""

import json

from memory_app.notes.lib import ArchiveManager
from memory_app.notes.lib.archive import ArchiveFile, local_naive_iso
from memory_app.notes.lib.archive.file import parse_line


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


def test_lines_before_pages_back_through_whole_lines_and_skips_a_line_being_written(tmp_path):
    archive = ArchiveFile(tmp_path / "archive.jsonl", tmp_path / "archive.lock")
    archive.append([agent_line(f"note_{i:012x}") for i in range(40)])
    with open(archive.path, "ab") as f:
        f.write(b'{"note_id": "note_torn')  # the agent is writing this one
    seen: list[str] = []
    end = None
    while True:
        lines, start = archive.lines_before(end, 300)  # a few lines a call
        assert lines, "every call reads at least one whole line"
        seen += [json.loads(data)["note_id"] for _, data in lines]
        for offset, data in lines:
            assert archive.line_at(offset) == parse_line(0, data)
        if start == 0:
            break
        end = start
    assert seen == [f"note_{i:012x}" for i in reversed(range(40))]


def test_lines_before_reads_a_line_longer_than_its_budget_whole(tmp_path):
    archive = ArchiveFile(tmp_path / "archive.jsonl", tmp_path / "archive.lock")
    archive.append([agent_line("note_0000000000a1", "x" * 5000), agent_line("note_0000000000a2")])
    lines, start = archive.lines_before(None, 100)
    assert [json.loads(d)["note_id"] for _, d in lines] == ["note_0000000000a2"]
    lines, start = archive.lines_before(start, 100)
    assert [len(json.loads(d)["content"]) for _, d in lines] == [5000] and start == 0
