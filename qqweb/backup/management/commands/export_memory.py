"""``manage.py export_memory [PATH]``: every store into one NDJSON file, in this process,
with a progress bar. Without PATH the file goes to ``QQ_BACKUP_DIR`` (the Backup page
lists it)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from graph_app.knowledge import GraphUnavailable
from qqweb.backup.services import backup_path, backup_run, export_create
from qqweb.lib.actors import Actor
from qqweb.lib.errors import StoreUnavailable


def progress_bar(command: BaseCommand) -> Any:
    def bar(done: int, total: int | None) -> None:
        if not total:
            command.stdout.write(f"\r{done} records", ending="")
        else:
            filled = int(30 * min(done, total) / total)
            command.stdout.write(
                f"\r[{'#' * filled}{'.' * (30 - filled)}] {done}/{total}", ending=""
            )
        command.stdout.flush()

    return bar


class Command(BaseCommand):
    help = "Export notes, memory files, graph and facts as NDJSON (see docs/backup-and-restore.md)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", nargs="?", help="where to write the export (a new file)")

    def handle(self, *args: Any, **options: Any) -> None:
        target = Path(options["path"]) if options["path"] else None
        if target is not None and target.exists():
            raise CommandError(f"{target} exists: an export never overwrites a file")
        run = export_create(actor=Actor.job("command:export_memory"))
        try:
            stats = backup_run(run=run, progress=progress_bar(self))
        except (StoreUnavailable, GraphUnavailable) as e:
            raise CommandError(str(e)) from e
        written = backup_path(str(run.params["file"]))
        if target is not None:
            shutil.move(written, target)
            stats["file"] = str(target)
        self.stdout.write("")
        self.stdout.write(self.style.SUCCESS(f"Exported to {stats['file']} (run #{run.pk})"))
        self.stdout.write(json.dumps(stats, indent=2))
