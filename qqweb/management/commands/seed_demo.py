from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from qqweb.demo import PARTS, DemoSeedReport, demo_seed
from qqweb.lib.clients import embedder
from qqweb.lib.demo_vectors import demo_embedder


class Command(BaseCommand):
    help = (
        "Load a realistic demo memory (notes, archive.jsonl, core.md, notes.md, graph) in "
        "the agent's exact formats. Each store is filled only when it is empty. With the "
        "packaged all-MiniLM-L6-v2 the vectors come precomputed (qqweb/lib/demo_vectors.py)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--reset",
            action="store_true",
            help="empty the notes, memory files and graph first (destructive)",
        )
        parser.add_argument("--seed", type=int, default=7, help="random seed (default 7)")
        parser.add_argument(
            "--only",
            choices=PARTS,
            help="seed only the memory (notes, archive, core.md, notes.md) or only the graph",
        )
        parser.add_argument(
            "--wait-for-graph",
            type=float,
            default=0.0,
            metavar="SECONDS",
            help="wait up to this long for Neo4j to answer (default: not at all)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        model = demo_embedder(embedder())
        if not model.table:
            self.stdout.write(f"Embedding the demo with {model.model_name} …")
        parts = (options["only"],) if options["only"] else PARTS
        report = demo_seed(
            embedder=model,
            reset=options["reset"],
            seed=options["seed"],
            parts=parts,
            graph_wait_s=options["wait_for_graph"],
        )
        for line in _lines(report, parts, vectors=model.summary()):
            self.stdout.write(self.style.SUCCESS(line))
        if report.skipped:
            self.stdout.write(
                "Left as they were (not empty or not reachable): " + ", ".join(report.skipped)
            )


def _lines(report: DemoSeedReport, parts: tuple[str, ...], *, vectors: str) -> list[str]:
    """What was written (nothing when every store was left as it was)."""
    lines = []
    counts = (report.notes, report.archive_lines, report.core_items, report.working_items)
    if "memory" in parts and any(counts):
        lines.append(
            f"Demo memory: {report.notes} notes, {report.archive_lines} archive lines, "
            f"{report.core_items} core items, {report.working_items} working notes."
        )
    if "graph" in parts and report.graph:
        written = ", ".join(f"{n} {what}" for what, n in report.graph.items())
        lines.append(f"Demo graph: {written}.")
    if report.notes or report.graph:
        lines[-1] += f" ({vectors})"
    return lines
