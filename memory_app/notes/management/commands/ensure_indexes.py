from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from memory_app.notes.stores import notes_store


class Command(BaseCommand):
    help = "Create the agent's MongoDB indexes on the notes collection (idempotent)."

    def handle(self, *args: Any, **options: Any) -> None:
        names = notes_store().ensure_indexes()
        self.stdout.write(self.style.SUCCESS(f"Indexes present: {', '.join(names)}"))
