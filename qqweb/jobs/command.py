"""The base of the per-job management commands (in each app's ``management/commands``):
the same options as the page and the API, a progress bar on the terminal, a summary at
the end. The job runs in this process.

The options are the job's parameters, made from its schema (:mod:`qqweb.jobs.params`),
which also checks their values: a bad one is a CommandError naming the option."""

from __future__ import annotations

import json
from typing import Any, Literal, get_args, get_origin

from django.core.management.base import BaseCommand, CommandError, CommandParser

from qqweb.jobs.params import InvalidJobParams
from qqweb.jobs.registry import JOBS
from qqweb.jobs.runner import job_create, job_run_in_process
from qqweb.lib.actors import Actor
from qqweb.lib.errors import Refused, Unavailable


class JobCommand(BaseCommand):
    kind = ""

    @property
    def help(self) -> str:  # type: ignore[override]
        return JOBS[self.kind].description

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--dry-run", action="store_true", help="report what would change, change nothing"
        )
        if JOBS[self.kind].apply is not None:  # a destructive job: pins_first in its app
            parser.add_argument(
                "--confirm-lost-pins",
                action="store_true",
                help="apply the plan even though it loses pinned recalls (else such a "
                "plan waits for review on its run's page and nothing is applied)",
            )
        for name, field in JOBS[self.kind].params.model_fields.items():
            if field.annotation is bool:
                parser.add_argument(
                    _flag(name),
                    dest=name,
                    action="store_true",
                    default=None,
                    help=field.description,
                )
            else:  # taken as text: the schema converts and checks it, as for the page
                parser.add_argument(
                    _flag(name),
                    dest=name,
                    metavar=_metavar(name, field.annotation),
                    help=field.description,
                )

    def handle(self, *args: Any, **options: Any) -> None:
        names = JOBS[self.kind].params.model_fields
        params = {name: options[name] for name in names if options[name] is not None}
        try:
            run = job_create(
                kind=self.kind,
                actor=Actor.job(f"command:{self.kind}"),
                dry_run=options["dry_run"],
                params=params,
                confirm_lost_pins=bool(options.get("confirm_lost_pins")),
            )
        except InvalidJobParams as e:
            raise CommandError(
                "; ".join(f"{_flag(name)}: {message}" for name, message in e.errors)
            ) from e
        except Refused as e:
            raise CommandError(str(e)) from e
        try:
            stats = job_run_in_process(run=run, on_progress=self._bar)
        except (Refused, Unavailable) as e:
            raise CommandError(str(e)) from e
        self.stdout.write("")
        label = "Dry run" if run.dry_run else "Done"
        self.stdout.write(self.style.SUCCESS(f"{label}: {JOBS[self.kind].title} (run #{run.pk})"))
        self.stdout.write(json.dumps(stats, indent=2, default=str))
        if stats.get("waits"):  # planned first, and the plan waits: say so last
            self.stdout.write(self.style.WARNING(f"Nothing applied: {stats['waits']}"))

    def _bar(self, done: int, total: int | None) -> None:
        if not total:
            self.stdout.write(f"\r{done} done", ending="")
            return
        filled = int(30 * done / total)
        self.stdout.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {done}/{total}", ending="")
        self.stdout.flush()


def _flag(name: str) -> str:
    return f"--{name.replace('_', '-')}"


def _metavar(name: str, annotation: Any) -> str:
    if get_origin(annotation) is Literal:
        return "{" + ",".join(str(choice) for choice in get_args(annotation)) + "}"
    return name.upper()
