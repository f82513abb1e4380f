"""Are the Celery worker and beat alive? Each process writes a heartbeat row
(:class:`~qqweb.models.ProcessHeartbeat`); the Health page, ``/healthz``, ``GET /api/health``
and the pages that start a job read them.

Why heartbeat rows and not ``app.control.ping()``: the broker ``make dev`` runs (kombu's
SQLAlchemy transport on SQLite) has no broadcast, so ping and inspect get no answer there
even from a healthy worker; a row in Django's own database works on every broker, costs
one small write every ``QQ_HEARTBEAT_INTERVAL_S`` and keeps the last-seen time of a worker
that died (a ping only knows who answers now). The worker writes its heartbeat from a
bootstep (qqweb/worker_heartbeat.py), beat from its scheduler's tick (qqweb/beat.py): both
run in ``make dev``, in docker-compose and in the tests, wherever ``celery -A qqweb``
starts them.

A process is *alive* while its last heartbeat is at most ``QQ_HEARTBEAT_STALE_S`` old,
*stopped* once it said so at a clean shutdown, and *gone* when it went silent without
saying so (killed, crashed, its machine off). Only processes on the broker this web
process sends jobs to count: a worker on another broker cannot run them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import close_old_connections
from django.utils import timezone
from kombu import Connection

from qqweb.models import ProcessHeartbeat

ALIVE, STOPPED, GONE = "alive", "stopped", "gone"
# Rows of processes silent for this long are deleted by the next heartbeat.
FORGET_AFTER = timedelta(days=1)

WORKER_COMMAND = "`make dev` or `celery -A qqweb worker`"
BEAT_COMMAND = "`make dev` or `celery -A qqweb beat`"


def broker_label(url: str) -> str:
    """The broker URL as heartbeats store and compare it: password masked."""
    try:
        return str(Connection(url).as_uri())
    except Exception:  # an unparsable URL still identifies its broker
        return url.rsplit("@", 1)[-1]


def heartbeat_record(
    *,
    kind: str,
    hostname: str,
    pid: int,
    started_at: datetime,
    broker_url: str,
    concurrency: int = 0,
    queues: list[str] | None = None,
    now: datetime | None = None,
) -> ProcessHeartbeat:
    """Write this process's heartbeat (one row per process start); forget long-silent ones."""
    close_old_connections()  # a heartbeat thread lives long: drop a broken connection
    now = now or timezone.now()
    row, _ = ProcessHeartbeat.objects.update_or_create(
        kind=kind,
        hostname=hostname,
        pid=pid,
        started_at=started_at,
        defaults={
            "broker": broker_label(broker_url),
            "concurrency": concurrency,
            "queues": sorted(queues or []),
            "last_seen": now,
            "stopped_at": None,
        },
    )
    ProcessHeartbeat.objects.filter(last_seen__lt=now - FORGET_AFTER).delete()
    return row


def heartbeat_stop(*, kind: str, hostname: str, pid: int, started_at: datetime) -> None:
    """Mark this process stopped (a clean shutdown): the page then says so at once
    instead of waiting for its heartbeat to go stale."""
    close_old_connections()
    ProcessHeartbeat.objects.filter(
        kind=kind, hostname=hostname, pid=pid, started_at=started_at
    ).update(stopped_at=timezone.now())


@dataclass(frozen=True)
class ProcessStatus:
    kind: str
    hostname: str
    pid: int
    state: str  # alive, stopped, gone
    concurrency: int
    queues: list[str]
    started_at: datetime
    last_seen: datetime
    seen_ago_s: int
    stopped_at: datetime | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "hostname": self.hostname,
            "pid": self.pid,
            "state": self.state,
            "concurrency": self.concurrency,
            "queues": self.queues,
            "started_at": self.started_at,
            "last_seen": self.last_seen,
            "seen_ago_s": self.seen_ago_s,
            "stopped_at": self.stopped_at,
        }


@dataclass(frozen=True)
class Liveness:
    """The worker and beat processes on this broker, and what to tell a user."""

    workers: list[ProcessStatus] = field(default_factory=list)
    beats: list[ProcessStatus] = field(default_factory=list)
    stale_after_s: int = 60
    error: str = ""  # the heartbeat table could not be read

    @property
    def worker_alive(self) -> bool:
        queue = getattr(settings, "CELERY_TASK_DEFAULT_QUEUE", "celery")
        return any(w.state == ALIVE and (not w.queues or queue in w.queues) for w in self.workers)

    @property
    def beat_alive(self) -> bool:
        return any(b.state == ALIVE for b in self.beats)

    @property
    def worker_problem(self) -> str:
        """One plain sentence, or "" while a worker runs (the command: WORKER_COMMAND)."""
        if self.worker_alive:
            return ""
        return (
            f"No worker is running (none has reported in the last {self.stale_after_s} s): "
            "jobs (duplicate scans, notes and graph jobs, undo runs, backups) will wait in the "
            "queue."
        )

    @property
    def beat_problem(self) -> str:
        if self.beat_alive:
            return ""
        return (
            f"Beat is not running (it has not reported in the last {self.stale_after_s} s): "
            "scheduled jobs (the job schedule, the reaper) will not start."
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "worker_alive": self.worker_alive,
            "beat_alive": self.beat_alive,
            "stale_after_s": self.stale_after_s,
            "workers": [w.as_dict() for w in self.workers],
            "beats": [b.as_dict() for b in self.beats],
            "problems": [
                f"{problem} Start {what} with {command}."
                for problem, what, command in (
                    (self.worker_problem, "one", WORKER_COMMAND),
                    (self.beat_problem, "it", BEAT_COMMAND),
                )
                if problem
            ],
        }


def _state(row: ProcessHeartbeat, now: datetime, stale: timedelta) -> str:
    if row.stopped_at is not None:
        return STOPPED
    return ALIVE if now - row.last_seen <= stale else GONE


def liveness(*, now: datetime | None = None) -> Liveness:
    """The worker and beat processes on this web process's broker seen in the last day,
    newest first. Never raises: an unreadable table is reported as nobody alive."""
    now = now or timezone.now()
    stale_s = settings.QQ_HEARTBEAT_STALE_S
    stale = timedelta(seconds=stale_s)
    try:
        rows = list(
            ProcessHeartbeat.objects.filter(
                broker=broker_label(settings.CELERY_BROKER_URL),
                last_seen__gte=now - FORGET_AFTER,
            ).order_by("-last_seen")[:50]
        )
    except Exception as e:
        return Liveness(stale_after_s=stale_s, error=str(e)[:300])
    statuses = [
        ProcessStatus(
            kind=row.kind,
            hostname=row.hostname,
            pid=row.pid,
            state=_state(row, now, stale),
            concurrency=row.concurrency,
            queues=list(row.queues),
            started_at=row.started_at,
            last_seen=row.last_seen,
            seen_ago_s=max(0, int((now - row.last_seen).total_seconds())),
            stopped_at=row.stopped_at,
        )
        for row in rows
    ]
    return Liveness(
        workers=[s for s in statuses if s.kind == ProcessHeartbeat.WORKER],
        beats=[s for s in statuses if s.kind == ProcessHeartbeat.BEAT],
        stale_after_s=stale_s,
    )


def jobs_wait_for_a_worker() -> bool:
    """True when a job queued now would wait: no worker on this broker is alive."""
    return not liveness().worker_alive


@dataclass(frozen=True)
class WorkerDot:
    """The header's "worker" dot, beside the stores': green while a worker's heartbeat is
    fresh, red when none has reported in ``QQ_HEARTBEAT_STALE_S`` (a dead worker no
    longer leaves every dot green); ``title`` says which, and what to do."""

    up: bool
    title: str


def worker_dot() -> WorkerDot:
    alive = liveness()
    if alive.worker_alive:
        seen = min(w.seen_ago_s for w in alive.workers if w.state == ALIVE)
        return WorkerDot(True, f"worker: alive, its heartbeat {seen} s ago")
    why = alive.error or alive.worker_problem
    return WorkerDot(False, f"worker: down. {why} Start one with {WORKER_COMMAND}.")
