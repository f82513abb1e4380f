from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory_app.facts.demo import facts_demo_seed
from memory_app.facts.lib import AGENT_MODEL, DIMENSION
from memory_app.facts.stores import FactsOff
from qqweb.lib.clients import embedder
from qqweb.lib.demo_vectors import demo_embedder


class Command(BaseCommand):
    help = (
        "Load the facts demo (about 220 documents in the second agent's exact shapes) into "
        "the facts collection (QQ_FACTS_MONGO_URI), only when it is empty."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--seed", type=int, default=7, help="random seed (default 7)")
        parser.add_argument(
            "--any-model",
            action="store_true",
            help=f"allow an embedder other than {AGENT_MODEL} (tests only: the agent "
            "cannot compare such vectors with its own)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        model = demo_embedder(embedder())  # the committed vectors where they apply
        name = model.model_name.rsplit("/", 1)[-1]
        if not options["any_model"] and (name != AGENT_MODEL or model.dimension != DIMENSION):
            raise CommandError(
                f"the facts agent's vectors come from {AGENT_MODEL}; the configured embedder "
                f"is {model.model_name!r} (set QQ_EMBEDDING_MODEL, or --any-model for tests)"
            )
        try:
            report = facts_demo_seed(embedder=model, seed=options["seed"])
        except FactsOff as e:
            raise CommandError(str(e)) from e
        if report.skipped:
            self.stdout.write(f"Facts demo: left as it was ({report.skipped}).")
            return
        self.stdout.write(
            self.style.SUCCESS(
                f"Facts demo: {report.facts} facts, {report.legacy_facts} legacy facts without "
                f"a vector, {report.turns} legacy conversation turns ({model.summary()})."
            )
        )
