"""Maintenance runs: a row per job run, with its progress, for pages to poll."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from memory_app.models import MaintenanceRun
from qqweb.actors import Actor


def run_create(
    *, kind: str, actor: Actor, params: dict[str, Any] | None = None, dry_run: bool = False
) -> MaintenanceRun:
    return MaintenanceRun.objects.create(
        kind=kind, started_by=actor.label, params=params or {}, dry_run=dry_run
    )


def run_started(run: MaintenanceRun) -> None:
    run.status, run.started_at = MaintenanceRun.RUNNING, timezone.now()
    run.save(update_fields=["status", "started_at"])


def run_progress(run: MaintenanceRun, processed: int, total: int | None) -> None:
    run.processed, run.total = processed, total
    run.save(update_fields=["processed", "total"])


def run_finished(run: MaintenanceRun, stats: dict[str, Any]) -> None:
    run.status, run.stats, run.finished_at = MaintenanceRun.DONE, stats, timezone.now()
    if run.total is None:
        run.total = run.processed
    run.save(update_fields=["status", "stats", "finished_at", "total"])


def run_failed(run: MaintenanceRun, error: str) -> None:
    run.status, run.error, run.finished_at = MaintenanceRun.FAILED, error[:5000], timezone.now()
    run.save(update_fields=["status", "error", "finished_at"])
