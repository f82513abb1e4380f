"""The base of the per-job management commands: same options as the page and the API,
a progress bar on the terminal, a summary at the end. The job runs in this process."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory_app.memory import InvalidNote, StoreUnavailable
from memory_app.services.maintenance import JOBS, job_create, job_run
from qqweb.actors import Actor


class JobCommand(BaseCommand):
    kind = ""
    params: tuple[tuple[str, type, str], ...] = ()  # (name, type, help)

    @property
    def help(self) -> str:  # type: ignore[override]
        return JOBS[self.kind].description

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--dry-run", action="store_true", help="report what would change, change nothing"
        )
        for name, kind, text in self.params:
            flag = f"--{name.replace('_', '-')}"
            if kind is bool:
                parser.add_argument(flag, dest=name, action="store_true", default=None, help=text)
            else:
                parser.add_argument(flag, dest=name, type=kind, help=text)

    def handle(self, *args: Any, **options: Any) -> None:
        params = {name: options[name] for name, _, _ in self.params if options[name] is not None}
        try:
            run = job_create(
                kind=self.kind,
                actor=Actor.job(f"command:{self.kind}"),
                dry_run=options["dry_run"],
                params=params,
            )
            stats = job_run(run=run, on_progress=self._bar)
        except (InvalidNote, StoreUnavailable) as e:
            raise CommandError(str(e)) from e
        self.stdout.write("")
        label = "Dry run" if run.dry_run else "Done"
        self.stdout.write(self.style.SUCCESS(f"{label}: {JOBS[self.kind].title} (run #{run.pk})"))
        self.stdout.write(json.dumps(stats, indent=2, default=str))

    def _bar(self, done: int, total: int | None) -> None:
        if not total:
            self.stdout.write(f"\r{done} done", ending="")
            return
        filled = int(30 * done / total)
        self.stdout.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {done}/{total}", ending="")
        self.stdout.flush()
