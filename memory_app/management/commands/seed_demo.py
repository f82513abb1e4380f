from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from memory_app.demo import demo_seed
from qqweb.clients import embedder


class Command(BaseCommand):
    help = (
        "Load a realistic demo memory (notes, archive.jsonl, core.md, notes.md, graph) in "
        "the agent's exact formats. Each store is filled only when it is empty."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--reset",
            action="store_true",
            help="empty the notes, memory files and graph first (destructive)",
        )
        parser.add_argument("--seed", type=int, default=7, help="random seed (default 7)")

    def handle(self, *args: Any, **options: Any) -> None:
        model = embedder()
        self.stdout.write(f"Embedding with {model.model_name} …")
        report = demo_seed(embedder=model, reset=options["reset"], seed=options["seed"])
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo memory: {report.notes} notes, {report.archive_lines} archive lines, "
                f"{report.core_items} core items, {report.working_items} working notes, "
                f"graph {report.graph or 'unchanged'}."
            )
        )
        if report.skipped:
            self.stdout.write(
                "Left as they were (not empty or not reachable): " + ", ".join(report.skipped)
            )
