"""The Backup page (admin): export, download, upload, preview and import, with progress."""

from __future__ import annotations

from typing import cast

from django.contrib import messages
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.http import require_GET, require_POST

from memory_app.facts.stores import facts_enabled
from memory_app.notes.lib import InvalidBackupFile
from qqweb.backup.services import (
    EXPORT,
    IMPORT,
    backup_files,
    backup_path,
    export_create,
    import_create,
    upload_save,
)
from qqweb.jobs.models import Run
from qqweb.jobs.runs import runs_recent
from qqweb.jobs.starting import run_enqueue, waits_for_worker
from qqweb.lib.actors import Actor
from qqweb.lib.auth import ADMIN, role_required
from qqweb.lib.errors import Refused
from qqweb.lib.pages import render_page
from qqweb.lib.words import inserted_words


@require_GET
@role_required(ADMIN)
def backup(request: HttpRequest) -> HttpResponse:
    runs = runs_recent(kinds=(EXPORT, IMPORT), limit=20)
    context = {"files": backup_files(), "runs": runs, "facts_enabled": facts_enabled()}
    return render_page(request, "backup/backup.html", "backup-files", context)


@require_POST
@role_required(ADMIN)
def export_start(request: HttpRequest) -> HttpResponse:
    run = run_enqueue(export_create(actor=Actor.from_request(request)))
    return redirect("backup:run", run_id=run.pk)


@require_GET
@role_required(ADMIN)
def file_download(request: HttpRequest, name: str) -> HttpResponse:
    try:
        path = backup_path(name)
    except InvalidBackupFile as e:
        raise Http404(str(e)) from e
    if not path.is_file():
        raise Http404(f"there is no backup file {name!r}")
    response = FileResponse(
        open(path, "rb"),  # noqa: SIM115 (FileResponse closes it)
        as_attachment=True,
        content_type="application/x-ndjson",
    )
    return cast(HttpResponse, response)  # streamed; role_required types views as HttpResponse


@require_POST
@role_required(ADMIN)
def upload(request: HttpRequest) -> HttpResponse:
    """Keep the uploaded file and start its preview (an import's dry run)."""
    uploaded = request.FILES.get("file")
    if uploaded is None:
        messages.error(request, "Choose an export file to upload.")
        return redirect("backup:backup")
    name = upload_save(chunks=uploaded.chunks())
    run = import_create(actor=Actor.from_request(request), file=name, dry_run=True)
    return redirect("backup:run", run_id=run_enqueue(run).pk)


@require_POST
@role_required(ADMIN)
def import_start(request: HttpRequest) -> HttpResponse:
    """Preview (``dry_run=1``) or import a file of the backup directory."""
    try:
        run = import_create(
            actor=Actor.from_request(request),
            file=request.POST.get("file", ""),
            dry_run=request.POST.get("dry_run") == "1",
            accept_conflicts=request.POST.get("accept_conflicts") == "1",
            import_valid=request.POST.get("import_valid") == "1",
        )
    except Refused as e:
        messages.error(request, str(e))
        return redirect("backup:backup")
    return redirect("backup:run", run_id=run_enqueue(run).pk)


@require_GET
@role_required(ADMIN)
def run(request: HttpRequest, run_id: int) -> HttpResponse:
    """A run with its progress; the ``run-status`` fragment polls itself while it runs."""
    item = get_object_or_404(Run, pk=run_id, kind__in=(EXPORT, IMPORT))
    preview = item.stats.get("preview") if isinstance(item.stats, dict) else None
    context = {
        "run": item,
        "preview": preview,
        "no_worker": waits_for_worker(item),
        "inserted": inserted_words(
            item.stats.get("inserted") if isinstance(item.stats, dict) else None
        ),
    }
    return render_page(request, "backup/run.html", "run-status", context)
