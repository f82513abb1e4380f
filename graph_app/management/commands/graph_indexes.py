from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from graph_app.stores import graph_store


class Command(BaseCommand):
    help = (
        "List, and with --create make, the optional Neo4j indexes that speed up qqweb's "
        "lookups (name on every entity label, source_id on :Source). The agent creates no "
        "indexes and qqweb never creates one on its own: this command is the only way."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--create", action="store_true", help="create the missing ones")

    def handle(self, *args: Any, **options: Any) -> None:
        store = graph_store()
        for index in store.suggested_indexes():
            what = f":{index.label}({index.property})"
            if index.exists:
                self.stdout.write(f"present  {what}")
            elif options["create"]:
                store.create_index(index.label, index.property)
                self.stdout.write(self.style.SUCCESS(f"created  {what}"))
            else:
                self.stdout.write(f"missing  {what}   (run with --create to add it)")
