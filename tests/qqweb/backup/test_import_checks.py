"""Issue 36: what reached the stores, the database or a page past the import's checks.
Each test is a reproduction from the issue (or a smaller one); the import now refuses the
record in its preview, writes nothing unless told to import the valid records, and every
page the record would reach still answers."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from bson import ObjectId

from graph_app.stores import graph_store
from memory_app.notes.stores import notes_store
from qqweb.backup import ndjson
from qqweb.backup.importing import RecordsRefused, backup_import, backup_preview
from qqweb.jobs.runner import job_run
from qqweb.lib.actors import Actor
from qqweb.recall.jobs import memory_tests_create
from qqweb.recall.models import Pin, TestRun
from tests.helpers import agent_archive_line, plant_note
from tests.qqweb.backup.test_refused_records import export_file

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("stores")]

NODE = {"kind": "node", "id": "n1", "labels": ["Person"], "props": {"name": "Ada"}}


def note_record(note_id: str, object_id: ObjectId | None = None) -> dict[str, Any]:
    doc = plant_note(note_id)
    notes_store().collection.delete_one({"note_id": note_id})
    if object_id is not None:
        doc["_id"] = object_id
    return {"kind": "note", "document": ndjson.bson_to_json(doc)}


def pin_record(**changes: Any) -> dict[str, Any]:
    return {
        "kind": "pin",
        "source": "notes",
        "query": "Where are the notes?",
        "item_id": "note_000000000001",
        "item_text": "",
        "comment": "",
        "created_by": "user:ada",
        "created_at": "2024-01-01T00:00:00+00:00",
        **changes,
    }


def archive_file(*lines: bytes) -> list[dict[str, Any]]:
    """The ``file_line`` records of an ``archive.jsonl`` holding ``lines``, and its end."""
    data = [line + b"\n" for line in lines]
    records: list[dict[str, Any]] = [
        {"kind": "file_line", "name": "archive.jsonl", "text": line.decode()} for line in data
    ]
    digest = hashlib.sha256(b"".join(data)).hexdigest()
    end = {"kind": "file_end", "name": "archive.jsonl", "lines": len(data), "sha256": digest}
    return [*records, end]


def nothing_written(memory_dir: Path) -> bool:
    return (
        notes_store().collection.count_documents({}) == 0
        and graph_store().export_counts().nodes == 0
        and not Pin.objects.exists()
        and not (memory_dir / "archive.jsonl").exists()
    )


# --- pins ----------------------------------------------------------------------------------


@pytest.mark.parametrize("when", ["0001-01-01T00:00:00+05:00", "9999-12-31T23:00:00-05:00"])
def test_a_pin_dated_out_of_range_is_refused_before_the_notes_and_nodes_are_written(
    stores, tmp_path, when
):
    """Finding 2: the preview took it, and the import failed 'date value out of range'
    after the notes and graph nodes were written, then again on every retry."""
    path = export_file(
        tmp_path / "e.ndjson",
        note_record("note_000000000001"),
        NODE,
        pin_record(created_at=when),
    )

    [refused] = backup_preview(source=path).refused
    with pytest.raises(RecordsRefused):
        backup_import(source=path)
    assert nothing_written(stores["memory_dir"])
    summary = backup_import(source=path, import_valid=True)

    assert refused["kind"] == "pin"
    assert f"its created_at {when} is out of the range of dates" in refused["reason"]
    assert summary.inserted["note"] == 1 and summary.inserted["node"] == 1
    assert summary.pins_inserted == 0


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"source": "bogus"}, "source: there is no memory 'bogus' here (known: notes)"),
        ({"query": "a\x00b"}, "its query holds a NUL character (U+0000)"),
        ({"comment": 5}, "its comment must be a text, not a number"),
        ({"item_id": "   "}, "its item_id must not be empty"),
    ],
)
def test_a_pin_the_api_would_refuse_is_refused_by_the_import(stores, tmp_path, changes, reason):
    """Finding 7: a pin with "source": "bogus", which POST /api/memory-tests/pins refuses,
    came in with a backup and then failed every memory-test run."""
    path = export_file(
        tmp_path / "e.ndjson", note_record("note_000000000001"), pin_record(**changes)
    )

    [refused] = backup_preview(source=path).refused
    backup_import(source=path, import_valid=True)
    run = memory_tests_create(actor=Actor.job("test"), trigger=TestRun.API)
    job_run(run=run)
    run.refresh_from_db()

    assert (refused["kind"], refused["reason"]) == ("pin", reason)
    assert not Pin.objects.exists()
    assert (run.status, run.stats["total"]) == ("done", 0)


# --- notes ---------------------------------------------------------------------------------


def test_two_notes_with_one_id_in_a_file_are_named_in_the_preview(stores, tmp_path):
    """Finding 3: the preview said 3 notes, 0 refused, 0 conflicts; the import ended
    'done' having inserted 2 and said nothing of the third."""
    same = ObjectId()
    path = export_file(
        tmp_path / "e.ndjson",
        note_record("note_000000000001", same),
        note_record("note_000000000002", same),
        note_record("note_000000000003"),
    )

    preview = backup_preview(source=path)
    with pytest.raises(RecordsRefused):
        backup_import(source=path)
    summary = backup_import(source=path, import_valid=True)

    assert [(r["line"], r["what"], r["reason"]) for r in preview.refused] == [
        (3, "note_000000000002", f"its _id {same} is given twice in the file")
    ]
    assert summary.inserted["note"] == 2
    assert summary.to_json()["preview"]["refused_count"] == 1


def test_a_note_whose_id_the_store_holds_under_another_note_id_is_a_conflict(stores, tmp_path):
    plant_note("note_000000000001")
    taken = notes_store().collection.find_one({"note_id": "note_000000000001"})["_id"]
    path = export_file(tmp_path / "e.ndjson", note_record("note_000000000002", taken))

    preview = backup_preview(source=path)

    assert (preview.notes_present, preview.notes_sample) == (1, ["note_000000000002"])
    assert preview.conflicts == 1


# --- graph ---------------------------------------------------------------------------------


def test_a_relationship_to_a_refused_node_is_refused_and_the_valid_records_come_in(
    stores, tmp_path
):
    """Finding 12: the tests let the import take a relationship whose end is a refused
    node; the write then failed half-way, after the other nodes were in."""
    refused_node = {"kind": "node", "id": "n2", "labels": ["Person"], "props": {}}
    knows = {"kind": "relationship", "start": "n1", "type": "KNOWS", "end": "n2", "props": {}}
    path = export_file(tmp_path / "e.ndjson", NODE, refused_node, knows)

    preview = backup_preview(source=path)
    summary = backup_import(source=path, import_valid=True)

    assert [(r["kind"], r["reason"]) for r in preview.refused][1] == (
        "relationship",
        "its end node 'n2' is refused",
    )
    assert summary.inserted == {"note": 0, "node": 1, "relationship": 0, "fact": 0}
    assert graph_store().export_counts().relationships == 0


# --- archive lines -------------------------------------------------------------------------

GOOD_LINE = json.dumps(agent_archive_line("note_0000000000a1", 3)).encode()
SLASHED = (
    b'{"note_id":"a/b","content":"x","section":null,"importance":0.1,"reason":"manual",'
    b'"archived_at":"2026-11-27T00:00:00"}'
)


def _line(**changes: Any) -> bytes:
    entry = {**agent_archive_line("note_0000000000b1", 3), **changes}
    return json.dumps(entry).encode()


HOSTILE_LINES = [
    (b"not json", "it is not a JSON object of an archived note"),
    (_line(metadata={"$where": "1"}), "metadata has the key '$where'"),
    (
        json.dumps({k: v for k, v in json.loads(_line()).items() if k != "note_id"}).encode(),
        "its note_id is required in an archive line",
    ),
    (_line().replace(b'"importance": 0.02', b'"importance": 1e999'), "importance is inf"),
    (_line().replace(b'"importance": 0.02', b'"importance": Infinity'), "Infinity is not"),
    (SLASHED, "its note_id 'a/b' is not of a safe form"),
    (_line(content="a\x00b"), "content holds a NUL character"),
    (_line(archived_at="0001-01-01T00:00:00"), "its archived_at 0001-01-01T00:00:00 is out"),
    (_line(section="Elsewhere"), "its section 'Elsewhere' is not one of"),
]


@pytest.mark.parametrize(("line", "reason"), HOSTILE_LINES)
def test_an_archive_line_a_restore_would_refuse_is_refused_by_the_import(
    stores, tmp_path, admin_client_, line, reason
):
    """Finding 4: archive.jsonl lines were checked only for the file's name and SHA-256,
    and a line of them then made /archive/ answer 500."""
    path = export_file(tmp_path / "e.ndjson", *archive_file(GOOD_LINE, line))

    [refused] = backup_preview(source=path).refused
    with pytest.raises(RecordsRefused):
        backup_import(source=path)
    assert nothing_written(stores["memory_dir"])
    backup_import(source=path, import_valid=True)

    assert (refused["kind"], refused["line"]) == ("archive line", 3)
    assert reason in refused["reason"]
    assert (stores["memory_dir"] / "archive.jsonl").read_bytes() == GOOD_LINE + b"\n"
    assert admin_client_.get("/archive/").status_code == 200


def test_the_archive_page_lists_the_lines_it_cannot_restore_and_never_answers_500(
    stores, admin_client_
):
    """The same lines written by the agent into the real archive: the page lists them
    without a Restore link, and a restore of one is refused with the reason (400)."""
    infinite = _line(note_id="note_0000000000c1").replace(
        b'"importance": 0.02', b'"importance": Infinity'
    )
    (stores["memory_dir"] / "archive.jsonl").write_bytes(
        b"\n".join([GOOD_LINE, SLASHED, infinite, b""])
    )

    page = admin_client_.get("/archive/")
    restore_page = admin_client_.get("/archive/note_0000000000c1/restore/")
    restore = admin_client_.post("/archive/note_0000000000c1/restore/")
    bulk = admin_client_.post(
        "/archive/restore/", {"note_ids": ["a/b", "note_0000000000c1"]}, follow=True
    )
    api = admin_client_.post(
        "/api/archive/note_0000000000c1/restore", {}, content_type="application/json"
    )

    assert page.status_code == 200
    text = page.content.decode()
    assert text.count("cannot be restored") == 2
    assert "/archive/note_0000000000a1/restore/" in text
    assert restore_page.status_code == restore.status_code == 400
    assert "cannot be restored: importance is inf, not a finite number" in restore.content.decode()
    assert bulk.status_code == 200
    assert (
        "a/b: note_id: the archive line of &#x27;a/b&#x27; cannot be restored"
        in bulk.content.decode()
    )
    assert api.status_code == 400, api.content
    assert notes_store().collection.count_documents({}) == 0


def test_a_memory_file_with_a_line_that_is_not_utf8_is_refused_and_the_core_page_answers(
    stores, tmp_path, admin_client_
):
    """Found by the property test: such a line in notes.md was written, and the core page
    (and the agent, which reads the file as UTF-8) then failed on it."""
    lines = [b"# Working notes\n", b"- a line that is not UTF-8: \xff\xfe\n"]
    records = [
        {"kind": "file_line", "name": "notes.md", "base64": base64.b64encode(line).decode()}
        for line in lines
    ]
    digest = hashlib.sha256(b"".join(lines)).hexdigest()
    end = {"kind": "file_end", "name": "notes.md", "lines": 2, "sha256": digest}
    path = export_file(tmp_path / "e.ndjson", *records, end)

    [refused] = backup_preview(source=path).refused
    backup_import(source=path, import_valid=True)

    assert (refused["kind"], refused["reason"]) == ("file", "its line 3 is not UTF-8 text")
    assert not (stores["memory_dir"] / "notes.md").exists()
    assert admin_client_.get("/core/").status_code == 200
