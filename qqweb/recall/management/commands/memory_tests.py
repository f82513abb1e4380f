"""``manage.py memory_tests``: run every pinned recall with the agent's own retrieval,
print one line a pin and recall@k / MRR per memory, store the run; exit 1 when a pin
fails (for a CI that guards an agent's memory), 0 otherwise. ``--json`` prints the same
as one JSON object. The run is a job's run (kind ``memory_tests``, in this process, listed
among the runs); one runs at a time."""

from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from qqweb.jobs.runner import job_run_in_process
from qqweb.lib.actors import Actor
from qqweb.recall.jobs import memory_tests_create
from qqweb.recall.models import TestRun
from qqweb.recall.selectors import run_report


class Command(BaseCommand):
    help = "Run the memory tests (every pinned recall); exit 1 when one fails."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--json", action="store_true", help="print the run as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        job = memory_tests_create(actor=Actor.job("command:memory_tests"), trigger=TestRun.COMMAND)
        job_run_in_process(run=job)  # a failure fails the run with the reason and raises
        run = TestRun.objects.get(job_run=job)
        report = run_report(run)
        if options["json"]:
            self.stdout.write(json.dumps(report, indent=2))
        else:
            for pin in report["pins"]:
                verdict = "PASS" if pin["passed"] else "FAIL"
                rank = f"rank {pin['rank']}" if pin["rank"] is not None else "not recalled"
                through = f" (through {pin['recalled_as']})" if pin["recalled_as"] else ""
                reason = f": {pin['reason']}" if pin["reason"] else ""
                self.stdout.write(
                    f"{verdict} [{pin['source']}] {pin['query']!r} -> {pin['item_id']}"
                    f"{through}, {rank}{reason}"
                )
            for source, s in report["sources"].items():
                self.stdout.write(
                    f"{source}: {s['passed']}/{s['pins']} pass, recall@{s['k']} "
                    f"{s['recall_at_k']:.3f}, MRR {s['mrr']:.3f}"
                )
            self.stdout.write(
                f"run {run.pk}: {run.passed} of {run.total} pins pass"
                if run.total
                else f"run {run.pk}: no pins (pin a recall on the Memory tests page)"
            )
        self.stdout.flush()
        if run.failed:
            sys.exit(1)
