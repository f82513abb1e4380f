"""Beat's scheduler: django-celery-beat's DatabaseScheduler that also writes beat's
heartbeat (qqweb/liveness.py). Settings name it (``CELERY_BEAT_SCHEDULER``), so every
``celery -A qqweb beat`` (``make dev``, docker-compose) heartbeats.

Why the scheduler's tick and not a beat-scheduled task: a task runs in a worker, so its
heartbeat would say "beat and a worker are alive" and go silent when only the worker is
down; the tick runs in the beat process itself, at least every 5 s (the scheduler's
longest sleep), and writes at most every ``QQ_HEARTBEAT_INTERVAL_S``.
"""

from __future__ import annotations

import logging
import os
import socket
import time
from typing import Any

from django.conf import settings
from django.utils import timezone
from django_celery_beat.schedulers import DatabaseScheduler

from qqweb.liveness import heartbeat_record, heartbeat_stop
from qqweb.models import ProcessHeartbeat

logger = logging.getLogger(__name__)


class HeartbeatScheduler(DatabaseScheduler):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._identity: dict[str, Any] = {
            "kind": ProcessHeartbeat.BEAT,
            "hostname": socket.gethostname(),
            "pid": os.getpid(),
            "started_at": timezone.now(),
        }
        self._last_beat = 0.0
        super().__init__(*args, **kwargs)

    def tick(self, *args: Any, **kwargs: Any) -> float:
        now = time.monotonic()
        if now - self._last_beat >= settings.QQ_HEARTBEAT_INTERVAL_S:
            self._last_beat = now
            try:
                heartbeat_record(**self._identity, broker_url=self.app.conf.broker_url)
            except Exception:  # a missed heartbeat must never stop the schedule
                logger.exception("beat could not write its heartbeat")
        return float(super().tick(*args, **kwargs))

    def close(self) -> None:
        super().close()
        try:
            heartbeat_stop(**self._identity)
        except Exception:
            logger.exception("beat could not mark its heartbeat stopped")
