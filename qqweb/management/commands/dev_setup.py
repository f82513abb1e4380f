from __future__ import annotations

import time
from io import StringIO
from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = (
        "What `make dev` prepares before the web server starts, in one process (each "
        "manage.py process spends 2-5 s starting Django here): the tables (migrate), the "
        "roles and the admin login (bootstrap), the demo memory with MongoDB's indexes "
        "(seed_demo --only memory) and the facts demo (seed_facts_demo). The demo graph "
        "is seeded apart (seed_demo --only graph), once Neo4j answers. Each step's lines "
        "end with the seconds it took."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        self._step("Tables: up to date.", "migrate", interactive=False, verbosity=0)
        self._step("", "bootstrap")
        self._step("", "seed_demo", only="memory")
        try:
            self._step("", "seed_facts_demo")
        except CommandError as e:
            self.stdout.write(f"Facts demo: skipped ({e})")

    def _step(self, said: str, command: str, **options: Any) -> None:
        out = StringIO()
        began = time.monotonic()
        call_command(command, stdout=out, **options)
        lines = [line for line in [said, *out.getvalue().splitlines()] if line.strip()]
        lines = lines or [f"{command}: done."]
        lines[-1] += f" ({time.monotonic() - began:.1f} s)"
        self.stdout.write("\n".join(lines))
