"""Backup runs: export and import are jobs (kinds ``export`` and ``import``, registered
with the jobs app by ``BackupAppConfig.ready()``), so each export or import is a run with
the same lock, retry, cancel and progress as every job, run by the worker's run task
(:mod:`qqweb.jobs.tasks`) or by a command in its own process. Files live in
``QQ_BACKUP_DIR`` under names this module makes, so a name from a request can never point
elsewhere."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.conf import settings

from memory_app.notes.lib import InvalidBackupFile
from qqweb.backup.exporting import Progress, backup_export
from qqweb.backup.importing import (
    ImportConflicts,
    ImportStart,
    RecordsRefused,
    backup_import,
    backup_preview,
)
from qqweb.jobs.models import Run
from qqweb.jobs.registry import Job
from qqweb.jobs.runner import job_run_in_process
from qqweb.jobs.runs import run_create
from qqweb.lib.actors import Actor
from qqweb.lib.errors import NotFound

EXPORT, IMPORT = "export", "import"
# An import run's stats while it writes: what its first try found (ImportStart), for a retry
IMPORT_STARTED = "import_started"
_FILE_NAME = re.compile(r"(export|upload)-[0-9A-Za-z-]{1,64}\.ndjson")


class BackupFileNotFound(NotFound):
    """There is no backup file of this name in the backup directory (404)."""

    def __init__(self, name: str) -> None:
        super().__init__(f"there is no backup file {name!r}")
        self.name = name

    def details(self) -> dict[str, object]:
        return {"file": self.name}


@dataclass(frozen=True)
class BackupFile:
    name: str
    size: int
    modified: datetime


def backup_path(name: str) -> Path:
    """The path of a backup file by its name; refuses any other name (422)."""
    if not isinstance(name, str) or not _FILE_NAME.fullmatch(name):
        raise InvalidBackupFile("file", f"{name!r} is not a backup file name")
    return Path(settings.QQ_BACKUP_DIR) / name


def backup_files() -> list[BackupFile]:
    directory = Path(settings.QQ_BACKUP_DIR)
    if not directory.is_dir():
        return []
    found = [
        BackupFile(p.name, p.stat().st_size, datetime.fromtimestamp(p.stat().st_mtime, UTC))
        for p in directory.iterdir()
        if _FILE_NAME.fullmatch(p.name)
    ]
    return sorted(found, key=lambda f: f.modified, reverse=True)


def upload_save(*, chunks: Iterable[bytes]) -> str:
    """Keep an uploaded export in the backup directory; returns its name."""
    name = f"upload-{datetime.now(UTC):%Y%m%d-%H%M%S}-{uuid.uuid4().hex[:8]}.ndjson"
    path = backup_path(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as handle:
        for chunk in chunks:
            handle.write(chunk)
    return name


def export_create(*, actor: Actor) -> Run:
    name = f"export-{datetime.now(UTC):%Y%m%d-%H%M%S}-{uuid.uuid4().hex[:8]}.ndjson"
    return run_create(kind=EXPORT, actor=actor, params={"file": name})


def import_create(
    *,
    actor: Actor,
    file: str,
    dry_run: bool = False,
    accept_conflicts: bool = False,
    import_valid: bool = False,
) -> Run:
    """An import (``dry_run``: its preview) of a file of the backup directory;
    ``import_valid``: leave out the records the checks refuse instead of refusing it."""
    if not backup_path(file).is_file():
        raise BackupFileNotFound(file)
    params = {
        "file": file,
        "accept_conflicts": bool(accept_conflicts),
        "import_valid": bool(import_valid),
    }
    return run_create(kind=IMPORT, actor=actor, params=params, dry_run=dry_run)


@dataclass(frozen=True)
class ExportResult:
    """What an export wrote (its run's stats): the file, its size, the records by kind,
    the memory files it holds."""

    file: str
    bytes: int
    counts: dict[str, int]
    files: list[str]


def export_work(run: Run, progress: Progress) -> ExportResult:
    """The export job: every store into the run's file."""
    path = backup_path(str(run.params["file"]))
    summary = backup_export(destination=path, progress=progress)
    return ExportResult(path.name, summary.bytes, summary.counts, summary.files)


def import_work(run: Run, progress: Progress) -> dict[str, Any]:
    """The import job (its dry run: the preview). A refused import (records refused and
    not left out, conflicts not accepted) fails the run with the reason, its preview in
    the stats, nothing written. A retry of the run (after an outage, or its worker died)
    finishes what the first try began: the first try keeps on the run what it found
    before writing (:class:`ImportStart`) and the retry keeps to it."""
    path = backup_path(str(run.params["file"]))
    if run.dry_run:
        return {"preview": backup_preview(source=path).to_json()}
    started = run.stats.get(IMPORT_STARTED) if isinstance(run.stats, dict) else None

    def keep_start(start: ImportStart) -> None:  # on the run, for a retry to find
        run.stats = {IMPORT_STARTED: asdict(start)}
        run.save(update_fields=["stats"])

    try:
        result = backup_import(
            source=path,
            accept_conflicts=bool(run.params.get("accept_conflicts")),
            import_valid=bool(run.params.get("import_valid")),
            progress=progress,
            resume=ImportStart(**started) if isinstance(started, dict) else None,
            on_start=keep_start,
        )
    except (ImportConflicts, RecordsRefused) as e:
        run.stats = {"preview": e.preview.to_json()}
        run.save(update_fields=["stats"])
        raise
    return result.to_json()


# Registered by BackupAppConfig.ready(): started from the Backup page and the backup API
# (not the jobs page's catalogue), run like every job: its lock, retry, cancel, run page.
BACKUP_JOBS = (
    Job(
        EXPORT,
        "Export",
        "Export every store into a file of the backup directory.",
        export_work,
        listed=False,
    ),
    Job(
        IMPORT,
        "Import",
        "Import a file of the backup directory (its dry run: a preview).",
        import_work,
        listed=False,
    ),
)


def backup_run(*, run: Run, progress: Progress | None = None) -> dict[str, Any]:
    """Run an export or an import run to its end, in this process (a command); its stats
    say what it did. A refused import (records refused and not left out, conflicts not
    accepted, a file that does not fit the format) fails the run with the reason and
    raises. A store that is down fails it too (the worker's task would retry it; here
    the admin runs the command again)."""
    return job_run_in_process(run=run, on_progress=progress)
