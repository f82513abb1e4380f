"""Backup and restore over the API (admin only): start an export, list and download the
files, upload one, preview and run an import. Runs are polled with
``GET /api/maintenance/runs/{id}`` (processed / total, then the stats)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.http import FileResponse, HttpRequest
from ninja import Field, File, Router, Schema, Status
from ninja.files import UploadedFile

from memory_app.notes.schemas import RunOut
from qqweb.backup.services import (
    BackupFileNotFound,
    backup_files,
    backup_path,
    export_create,
    import_create,
    upload_save,
)
from qqweb.jobs.starting import run_enqueue
from qqweb.lib.actors import Actor
from qqweb.lib.api_types import errors
from qqweb.lib.auth import ADMIN, require_role

router = Router(tags=["backup"])


class BackupFileOut(Schema):
    name: str
    size: int
    modified: datetime


class UploadOut(Schema):
    file: str


class ImportIn(Schema):
    file: str = Field(max_length=100, description="a file of GET /api/backup/files")
    dry_run: bool = Field(True, description="only preview: count the conflicts, write nothing")
    accept_conflicts: bool = Field(
        False,
        description="import what is missing although the stores hold some of the file "
        "(what they hold is kept, never overwritten)",
    )
    import_valid: bool = Field(
        False,
        description="import the records that pass the checks and leave out the refused ones "
        "(listed in the run's preview); without it a file holding a refused record is "
        "refused whole, writing nothing",
    )


@router.post("/exports", response={202: RunOut, **errors(503)})
def export_start(request: HttpRequest) -> Status:
    """Export every store into a new file of the backup directory, in the worker."""
    require_role(request, ADMIN)
    return Status(202, run_enqueue(export_create(actor=Actor.from_request(request))))


@router.get("/files", response={200: list[BackupFileOut], **errors()})
def files_list(request: HttpRequest) -> list[Any]:
    require_role(request, ADMIN)
    return list(backup_files())


@router.get("/files/{name}", response={200: None, **errors(404)})
def file_download(request: HttpRequest, name: str) -> FileResponse:
    """The file itself (``application/x-ndjson``)."""
    require_role(request, ADMIN)
    path = backup_path(name)
    if not path.is_file():
        raise BackupFileNotFound(name)
    return FileResponse(open(path, "rb"), as_attachment=True, content_type="application/x-ndjson")


@router.post("/uploads", response={201: UploadOut, **errors(413, 503)})
def upload(request: HttpRequest, file: UploadedFile = File(...)) -> Status:  # noqa: B008
    """Keep an export file for a later import; answers its name."""
    require_role(request, ADMIN)
    return Status(201, {"file": upload_save(chunks=file.chunks())})


@router.post("/imports", response={202: RunOut, **errors(404, 503)})
def import_start(request: HttpRequest, body: ImportIn) -> Status:
    """Preview (``dry_run``, the default) or run an import of a backup file. Every record
    is checked first; a run over a file holding refused records fails with them in its
    stats (``preview.refused``), writing nothing, unless ``import_valid``. A run into
    stores that hold some of it fails with the conflicts in its stats, writing nothing,
    unless ``accept_conflicts``."""
    require_role(request, ADMIN)
    run = import_create(
        actor=Actor.from_request(request),
        file=body.file,
        dry_run=body.dry_run,
        accept_conflicts=body.accept_conflicts,
        import_valid=body.import_valid,
    )
    return Status(202, run_enqueue(run))
