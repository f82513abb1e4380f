"""An import checks every record before it writes anything: a file holding one the
stores would not take is refused whole, with each refused record named in words, unless
the admin chooses to import the valid ones (then the refused ones are listed on the run
page). Issue 28's reproduction is the first test."""

from __future__ import annotations

import hashlib
import io
import json
import time
from pathlib import Path
from typing import Any

import pytest
from bson import ObjectId
from django.core.management import CommandError, call_command

from graph_app.stores import graph_store
from memory_app.notes.stores import notes_store
from qqweb.backup import ndjson
from qqweb.backup.exporting import backup_export
from qqweb.backup.importing import RecordsRefused, backup_import, backup_preview
from qqweb.backup.ndjson import ExportFormatError
from qqweb.backup.services import backup_run, import_create, upload_save
from qqweb.jobs.models import Run
from qqweb.lib.actors import Actor
from qqweb.lib.clients import neo4j_driver
from tests.helpers import plant_note

HEADER = {"kind": "header", "format": "qqweb-export", "version": 1, "created_at": "x"}


def export_file(path: Path, *records: dict[str, Any], counts: dict[str, int] | None = None) -> Path:
    """A file of ``records`` between a header and an end record counting them."""
    if counts is None:
        counts = {kind: 0 for kind in ndjson.COUNTED}
        for record in records:
            if record.get("kind") in counts:
                counts[record["kind"]] += 1
    lines = [HEADER, *records, {"kind": "end", "counts": counts}]
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    return path


def wait_for(run_id: int, seconds: float = 90) -> Run:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        run = Run.objects.get(pk=run_id)
        if run.status in ("done", "failed"):
            return run
        time.sleep(0.3)
    raise AssertionError(f"run {run_id} still {run.status}")


@pytest.mark.django_db(transaction=True)
def test_a_note_without_note_id_is_refused_and_decay_still_runs(
    celery_worker, settings, admin_client_
):
    """Issue 28: this file was imported with accept_conflicts, and the decay dry run then
    failed on 'note_id'. Now the record is refused and nothing is written."""
    settings.QQ_MONGO_DB = celery_worker["QQ_MONGO_DB"]
    settings.MEMORY_DIR = celery_worker["MEMORY_DIR"]
    settings.QQ_BACKUP_DIR = celery_worker["QQ_BACKUP_DIR"]
    notes_store().clear_all()
    plant_note("note_000000000001")
    record = {"kind": "note", "document": {"_id": {"$oid": str(ObjectId())}, "content": "x"}}
    path = Path(settings.QQ_BACKUP_DIR)
    path.mkdir(parents=True, exist_ok=True)
    name = upload_save(chunks=[export_file(path / "x.ndjson", record).read_bytes()])

    response = admin_client_.post(
        "/api/backup/imports",
        json.dumps({"file": name, "dry_run": False, "accept_conflicts": True}),
        content_type="application/json",
    )
    imported = wait_for(response.json()["id"])
    decay = admin_client_.post(
        "/api/maintenance/decay", json.dumps({"dry_run": True}), content_type="application/json"
    )
    decayed = wait_for(decay.json()["id"])

    assert imported.status == "failed"
    assert "line 2 (note): it has no note_id" in imported.error
    assert imported.stats["preview"]["refused"][0]["reason"] == "it has no note_id"
    assert notes_store().collection.count_documents({}) == 1
    assert decayed.status == "done", decayed.error
    notes_store().clear_all()


HOSTILE_NOTES = [
    ({"note_id": {"$ne": None}}, "note_id has the key '$ne'"),
    ({"$where": "sleep(1000)"}, "the document has the key '$where'"),
    ({"metadata": {"a.b": 1}}, "metadata has the key 'a.b'"),
    ({"embedding": ["0.1", "0.2"]}, "its embedding holds values that are not numbers"),
    ({"embedding": [0.5] * 7}, "its embedding has 7 dimensions, the notes' vectors 384"),
    ({"importance": float("inf")}, "importance is inf, not a finite number"),
    ({"note_id": "../../etc/passwd"}, "its note_id '../../etc/passwd' is not of a safe form"),
    ({"created_at": "2024-01-01"}, "created_at (a str)"),
    ({"access_count": "many"}, "access_count (a str)"),
    ({"source_history": ["x"]}, "source_history holds values that are not objects"),
    ({"_id": "abc"}, "its _id is a str, not an ObjectId"),
]


def _note_record(**changes: Any) -> dict[str, Any]:
    doc = plant_note("note_0000000000ff")
    notes_store().collection.delete_one({"note_id": "note_0000000000ff"})
    return {"kind": "note", "document": ndjson.bson_to_json({**doc, **changes})}


@pytest.mark.parametrize(("changes", "reason"), HOSTILE_NOTES)
def test_a_note_the_store_would_not_take_is_refused_with_its_reason(
    mongo, memory_dir, neo4j, tmp_path, changes, reason
):
    path = export_file(tmp_path / "e.ndjson", _note_record(**changes))

    preview = backup_preview(source=path)
    with pytest.raises(RecordsRefused):
        backup_import(source=path, accept_conflicts=True)

    assert preview.refused_count == 1
    assert reason in preview.refused[0]["reason"]
    assert preview.refused[0]["line"] == 2
    assert notes_store().collection.count_documents({}) == 0


def test_a_facts_document_of_another_shape_is_refused(stores, facts_store, tmp_path):
    note_shaped = {"_id": {"$oid": str(ObjectId())}, "note_id": "note_000000000001"}
    no_type = {"_id": {"$oid": str(ObjectId())}, "content": "x", "timestamp": {"$date": 0}}
    path = export_file(
        tmp_path / "e.ndjson",
        {"kind": "fact", "document": {**note_shaped, "content": "a note"}},
        {"kind": "fact", "document": no_type},
    )

    preview = backup_preview(source=path)

    assert [r["reason"] for r in preview.refused] == [
        "it is a qq note (it has a note_id), not a document of the facts collection",
        'its type must be exactly "fact"',
    ]


GOOD_NODE = {"kind": "node", "id": "n1", "labels": ["Person"], "props": {"name": "Ada"}}


@pytest.mark.parametrize(
    ("records", "reason"),
    [
        ([{**GOOD_NODE, "labels": []}], "it has no label"),
        ([{**GOOD_NODE, "labels": ["Person`) DETACH DELETE n //"]}], "label 'Person`) DETACH"),
        ([{**GOOD_NODE, "props": {}}], "it is an entity without a name"),
        ([{**GOOD_NODE, "props": {"name": "Ada", "x": {"a": 1}}}], "its property 'x' is an object"),
        ([{**GOOD_NODE, "props": {"name": "Ada", "x": [1, "a"]}}], "a list of mixed types"),
        (
            [{**GOOD_NODE, "props": {"name": "Ada", "\x00k": 1}}],
            "the property name '\\x00k' holds a null character",
        ),
        (
            [
                GOOD_NODE,
                {"kind": "relationship", "start": "n1", "type": "KNOWS", "end": "n9", "props": {}},
            ],
            "its end node 'n9' is not a node before it in the file",
        ),
        (
            [
                GOOD_NODE,
                {"kind": "relationship", "start": "n1", "type": "NO WAY", "end": "n1", "props": {}},
            ],
            "relationship type 'NO WAY' is not allowed",
        ),
    ],
)
def test_a_graph_record_the_graph_would_not_take_is_refused_before_any_node_is_written(
    stores, tmp_path, records, reason
):
    path = export_file(tmp_path / "e.ndjson", *records)

    with pytest.raises(RecordsRefused) as refused:
        backup_import(source=path)

    assert reason in refused.value.preview.refused[0]["reason"]
    assert graph_store().export_counts().nodes == 0


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (
            b'{"kind":"note","document":{"_id":{"$oid":"zz"}}}',
            "document._id cannot be read: an ObjectId ($oid) must be 24 hexadecimal digits",
        ),
        (
            b'{"kind":"note","document":{"note_id":"\xff\xfe"}}',
            "line 2 is not UTF-8 text (byte 39)",
        ),
        (b"[" * 5000 + b"]" * 5000, "line 2 nests too deeply to be read"),
        (b'{"kind":"note",', "line 2 is not valid JSON"),
        (
            b'{"kind":"note","document":{"note_id":"\\ud800"}}',
            "line 2 holds a lone UTF-16 surrogate",
        ),
        (b'{"kind":"spell"}', "line 2 is a record of unknown kind 'spell'"),
    ],
)
def test_a_line_that_cannot_be_read_is_refused_in_words(
    mongo, memory_dir, neo4j, tmp_path, line, reason
):
    path = tmp_path / "e.ndjson"
    end = {"kind": "end", "counts": {"note": 1}}
    path.write_bytes(json.dumps(HEADER).encode() + b"\n" + line + b"\n" + json.dumps(end).encode())

    preview = backup_preview(source=path)

    assert preview.refused_count == 1
    assert reason in preview.refused[0]["reason"]


@pytest.mark.parametrize("version", [1.0, True, "1", 2])
def test_only_the_integer_version_1_is_read(tmp_path, version):
    path = export_file(tmp_path / "e.ndjson")
    lines = path.read_text().splitlines(keepends=True)
    path.write_text(json.dumps({**HEADER, "version": version}) + "\n" + "".join(lines[1:]))

    with pytest.raises(ExportFormatError, match="this qqweb reads version 1 exports only"):
        list(ndjson.read_lines(path))


def test_importing_the_valid_records_leaves_out_the_refused_and_lists_them(stores, tmp_path):
    for i in range(3):
        plant_note(f"note_00000000000{i}")
    neo4j_driver().execute_query(
        "CREATE (:Person {name: 'Ada'})-[:KNOWS]->(:Person {name: 'Bo'}) CREATE (:Concept)"
    )
    path = tmp_path / "export.ndjson"
    backup_export(destination=path)
    notes_store().clear_all()
    graph_store().delete_everything()

    summary = backup_import(source=path, import_valid=True)

    assert summary.inserted == {"note": 3, "node": 2, "relationship": 1, "fact": 0}
    [refused] = summary.to_json()["preview"]["refused"]
    assert (refused["kind"], refused["reason"]) == (
        "node",
        "it is an entity without a name (a non-empty string)",
    )
    assert notes_store().collection.count_documents({}) == 3


def test_a_refused_import_leaves_no_lock_file_in_the_memory_directory(stores, tmp_path):
    texts = ("# notes\n", "- a note\n")
    lines = [{"kind": "file_line", "name": "notes.scout.md", "text": t} for t in texts]
    digest = hashlib.sha256("".join(texts).encode()).hexdigest()
    end = {"kind": "file_end", "name": "notes.scout.md", "lines": 2, "sha256": digest}
    path = export_file(tmp_path / "e.ndjson", *lines, end, _note_record(content=""))
    before = sorted(p.name for p in stores["memory_dir"].iterdir())

    with pytest.raises(RecordsRefused):
        backup_import(source=path)

    assert sorted(p.name for p in stores["memory_dir"].iterdir()) == before


@pytest.mark.django_db
def test_the_run_page_lists_the_refused_records_and_offers_to_import_the_valid_ones(
    stores, admin_client_, tmp_path
):
    record = _note_record(importance=float("inf"))
    path = export_file(tmp_path / "e.ndjson", record)
    name = upload_save(chunks=[path.read_bytes()])
    run = import_create(actor=Actor.job("test"), file=name, dry_run=True)
    backup_run(run=run)

    page = admin_client_.get(f"/backup/runs/{run.pk}/").content.decode()

    assert "1 refused record(s)" in page
    assert "importance is inf, not a finite number" in page
    assert 'name="import_valid" value="1"' in page
    assert "Import the valid records, leaving out the 1 refused" in page


@pytest.mark.django_db
def test_an_upload_over_the_limit_is_refused_with_413_and_kept_nowhere(
    admin_client_, settings, backup_dir
):
    settings.QQ_UPLOAD_MAX_MB = 1
    body = io.BytesIO(b"x" * (1024 * 1024 + 1))
    body.name = "big.ndjson"

    api = admin_client_.post("/api/backup/uploads", {"file": body})
    body.seek(0)
    page = admin_client_.post("/backup/upload/", {"file": body})

    assert api.status_code == 413
    assert "at most 1 MB (QQ_UPLOAD_MAX_MB)" in api.json()["error"]["message"]
    assert page.status_code == 413 and b"at most 1 MB" in page.content
    assert not backup_dir.exists() or not list(backup_dir.iterdir())


@pytest.mark.django_db
def test_an_upload_without_a_multipart_boundary_is_a_400(admin_client_):
    for url in ("/api/backup/uploads", "/backup/upload/"):
        response = admin_client_.post(url, b"--x\r\n", content_type="multipart/form-data")
        assert response.status_code == 400, (url, response.content)


@pytest.mark.django_db
def test_the_import_command_refuses_the_file_or_imports_the_valid_records(stores, tmp_path):
    good = plant_note("note_000000000001")
    notes_store().clear_all()
    path = export_file(
        tmp_path / "e.ndjson",
        {"kind": "note", "document": ndjson.bson_to_json(good)},
        _note_record(note_id="../up"),
    )

    with pytest.raises(CommandError, match=r"1 record\(s\) of this file are refused"):
        call_command("import_memory", str(path))
    assert notes_store().collection.count_documents({}) == 0
    call_command("import_memory", str(path), "--import-valid")

    assert [d["note_id"] for d in notes_store().collection.find({})] == ["note_000000000001"]
