"""Celery tasks of the facts store: thin wrappers around one service."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from memory_app.facts.services import ScanCancelled, vanished_scan_run
from memory_app.facts.stores import facts_enabled
from qqweb.lib.actors import Actor


@shared_task(name="facts.vanished_scan")
def vanished_scan_task() -> dict[str, Any]:
    """The periodic vanished-facts scan (``CELERY_BEAT_SCHEDULE``), a run of the
    ``vanished_scan`` job in this worker process; nothing while the facts store is off."""
    if not facts_enabled():
        return {"skipped": "the facts store is off"}
    try:
        report = vanished_scan_run(actor=Actor.job("facts-scan"))
    except ScanCancelled as e:  # from the Jobs page, while it ran: it wrote nothing
        return {"cancelled": str(e)}
    return {"seen": report.seen, "new": report.new, "vanished": report.vanished}
