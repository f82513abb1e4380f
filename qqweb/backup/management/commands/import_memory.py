"""``manage.py import_memory PATH [--dry-run] [--accept-conflicts] [--import-valid]``: an
export back into the stores, in this process, with a progress bar. ``--dry-run`` prints
the preview. A file holding records the checks refuse is not imported (nothing is
written; the preview lists them) unless ``--import-valid`` leaves them out. Into stores
that already hold some of the file the import stops, writing nothing, and prints the
conflicts; ``--accept-conflicts`` imports the rest and keeps what is there."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from graph_app.knowledge import GraphUnavailable
from qqweb.backup.importing import ImportConflicts, RecordsRefused
from qqweb.backup.management.commands.export_memory import progress_bar
from qqweb.backup.ndjson import ExportFormatError
from qqweb.backup.services import backup_run, import_create, upload_save
from qqweb.lib.actors import Actor
from qqweb.lib.errors import InvalidInput, StoreUnavailable


class Command(BaseCommand):
    help = "Import an NDJSON export into the stores (never overwrites; see --accept-conflicts)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", help="the export file")
        parser.add_argument("--dry-run", action="store_true", help="print the preview only")
        parser.add_argument(
            "--accept-conflicts",
            action="store_true",
            help="import what is missing and keep what the stores hold already",
        )
        parser.add_argument(
            "--import-valid",
            action="store_true",
            help="import the records that pass the checks, leaving out the refused ones",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        source = Path(options["path"])
        if not source.is_file():
            raise CommandError(f"{source} is not a file")
        with open(source, "rb") as handle:
            name = upload_save(chunks=iter(lambda: handle.read(1 << 20), b""))
        run = import_create(
            actor=Actor.job("command:import_memory"),
            file=name,
            dry_run=options["dry_run"],
            accept_conflicts=options["accept_conflicts"],
            import_valid=options["import_valid"],
        )
        try:
            stats = backup_run(run=run, progress=progress_bar(self))
        except (ImportConflicts, RecordsRefused) as e:
            self.stdout.write(json.dumps(e.preview.to_json(), indent=2))
            raise CommandError(str(e)) from e
        except (ExportFormatError, InvalidInput, StoreUnavailable, GraphUnavailable) as e:
            raise CommandError(str(e)) from e
        self.stdout.write("")
        label = "Preview" if run.dry_run else "Imported"
        self.stdout.write(self.style.SUCCESS(f"{label}: {source} (run #{run.pk})"))
        self.stdout.write(json.dumps(stats, indent=2))
