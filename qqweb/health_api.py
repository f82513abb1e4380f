"""``GET /api/health``: the Health page as JSON (stores, worker and beat liveness)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.http import HttpRequest
from ninja import Field, Router, Schema

from qqweb.health import forget_cached_health, stores_health
from qqweb.lib.api_types import errors
from qqweb.lib.auth import VIEWER, require_role
from qqweb.liveness import liveness

router = Router(tags=["health"])


class StoreStatusOut(Schema):
    name: str
    up: bool
    latency_ms: float | None
    detail: str
    hint: str = Field(description="what to check when the store is down")


class ProcessOut(Schema):
    hostname: str
    pid: int
    state: str = Field(description="alive, stopped (a clean shutdown) or gone (went silent)")
    concurrency: int
    queues: list[str]
    started_at: datetime
    last_seen: datetime
    seen_ago_s: int
    stopped_at: datetime | None


class JobsOut(Schema):
    worker_alive: bool = Field(description="a worker on this broker consumes the job queue")
    beat_alive: bool
    stale_after_s: int = Field(description="a process silent for longer is gone")
    workers: list[ProcessOut]
    beats: list[ProcessOut]
    problems: list[str] = Field(description="a sentence and the command for each one down")


class HealthOut(Schema):
    stores: list[StoreStatusOut]
    jobs: JobsOut


@router.get("/health", response={200: HealthOut, **errors()})
def health(request: HttpRequest) -> dict[str, Any]:
    """Every store's status, and whether a Celery worker and beat are alive."""
    require_role(request, VIEWER)
    forget_cached_health()
    return {
        "stores": [s.as_dict() for s in stores_health()],
        "jobs": liveness().as_dict(),
    }
