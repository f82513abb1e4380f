"""``manage.py liveness worker|beat [--hostname H]``: exit 1 unless such a process is
alive (qqweb/liveness.py), printing why. docker-compose's beat health check uses it."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from qqweb.liveness import ALIVE, liveness


class Command(BaseCommand):
    help = "Exit 0 when a worker (or beat) on this broker has reported recently, else 1."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("kind", choices=["worker", "beat"])
        parser.add_argument(
            "--hostname", default="", help="only a process on this host (the worker's: name@host)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        state = liveness()
        processes = state.workers if options["kind"] == "worker" else state.beats
        alive = [
            p for p in processes if p.state == ALIVE and options["hostname"] in ("", p.hostname)
        ]
        if not alive:
            problem = state.worker_problem if options["kind"] == "worker" else state.beat_problem
            raise CommandError(problem or f"no {options['kind']} on {options['hostname']}")
        for p in alive:
            self.stdout.write(f"{p.hostname} pid {p.pid}: alive, seen {p.seen_ago_s} s ago")
