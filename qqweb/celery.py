"""The Celery app. Configuration comes from Django settings (``CELERY_*``)."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "qqweb.settings")

app = Celery("qqweb")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# Every worker writes a heartbeat row (the Health page's worker liveness).
app.steps["worker"].add("qqweb.worker_heartbeat:HeartbeatStep")
