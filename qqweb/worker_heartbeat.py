"""The worker's heartbeat (qqweb/liveness.py): a bootstep, added to the Celery app in
qqweb/celery.py, so every ``celery -A qqweb worker`` (``make dev``, docker-compose, the
tests' workers) writes one, on any broker and any pool.

It writes from a thread of its own rather than the worker's timer: with the prefork pool
on Redis that timer runs on the worker's event loop, and a heartbeat waiting on a busy
database (SQLite's lock waits up to 20 s) would stall the intake of tasks meanwhile. The
thread is stopped, and the row marked stopped, when the worker shuts down cleanly.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import Any

from celery import bootsteps
from django.db import connection
from django.utils import timezone

logger = logging.getLogger(__name__)


class Heartbeat:
    """The thread that writes one worker's heartbeat every ``QQ_HEARTBEAT_INTERVAL_S``."""

    def __init__(self, worker: Any) -> None:
        self.worker = worker
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None
        self.identity: dict[str, Any] = {}

    def start(self) -> None:
        from qqweb.models import ProcessHeartbeat  # the app registry is ready by now

        self.identity = {
            "kind": ProcessHeartbeat.WORKER,
            "hostname": self.worker.hostname,
            "pid": os.getpid(),
            "started_at": timezone.now(),
        }
        self.thread = threading.Thread(target=self._run, name="qqweb-heartbeat", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        from django.conf import settings

        from qqweb.liveness import heartbeat_record

        app = self.worker.app
        while not self.stopping.is_set():
            try:
                heartbeat_record(
                    **self.identity,
                    broker_url=app.conf.broker_url,
                    concurrency=int(self.worker.concurrency or 0),
                    queues=list(app.amqp.queues.consume_from or app.amqp.queues),
                )
            except Exception:  # a missed heartbeat must never stop the worker
                logger.exception("the worker could not write its heartbeat")
            self.stopping.wait(settings.QQ_HEARTBEAT_INTERVAL_S)
        connection.close()

    def stop(self) -> None:
        from qqweb.liveness import heartbeat_stop

        self.stopping.set()
        if not self.identity:  # never started
            return
        if self.thread is not None:
            self.thread.join(timeout=25)
            self.thread = None
        try:
            heartbeat_stop(**self.identity)
        except Exception:
            logger.exception("the worker could not mark its heartbeat stopped")

    terminate = stop


class HeartbeatStep(bootsteps.StartStopStep):
    """Starts :class:`Heartbeat` with the worker and stops it with the worker."""

    label = "qqweb heartbeat"
    # after the pool: a prefork pool forks its children before this thread exists, and the
    # first heartbeat means the pool is up
    requires = {"celery.worker.components:Pool"}

    def create(self, worker: Any) -> Heartbeat:
        return Heartbeat(worker)
