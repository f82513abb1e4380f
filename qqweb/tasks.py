"""Project-level Celery tasks."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from qqweb.health import stores_health


@shared_task(name="qqweb.stores_health")
def stores_health_task() -> list[dict[str, Any]]:
    """Check every store from the worker's side (its own clients and settings)."""
    return [status.as_dict() for status in stores_health()]
