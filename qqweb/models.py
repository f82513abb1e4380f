"""Django-side state of the project itself: API tokens, and the heartbeats of the Celery
worker and beat processes."""

from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone

TOKEN_PREFIX = "qq_"  # noqa: S105 - a visible prefix, not a secret


def hash_token(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


class ApiToken(models.Model):
    """A bearer token for scripts. Only its SHA-256 is stored; the token itself is shown
    once, when it is created. It acts with its owner's role."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100)
    key_hash = models.CharField(max_length=64, unique=True)
    key_prefix = models.CharField(max_length=12)
    created_at = models.DateTimeField(default=timezone.now)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.key_prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None

    @staticmethod
    def new_raw_key() -> str:
        return TOKEN_PREFIX + secrets.token_urlsafe(32)


class ProcessHeartbeat(models.Model):
    """A Celery worker or beat process saying it is alive (qqweb/liveness.py). Each process
    writes its own row every ``QQ_HEARTBEAT_INTERVAL_S`` and marks it stopped on a clean
    shutdown; a row whose ``last_seen`` is older than ``QQ_HEARTBEAT_STALE_S`` belongs to
    a process that died without saying so."""

    WORKER, BEAT = "worker", "beat"

    kind = models.CharField(max_length=10, choices=[(WORKER, WORKER), (BEAT, BEAT)])
    hostname = models.CharField(max_length=255)
    pid = models.PositiveIntegerField()
    # the broker the process talks to (password masked): only a worker on the broker the
    # web process sends to can run its jobs
    broker = models.CharField(max_length=500)
    concurrency = models.PositiveIntegerField(default=0)
    queues = models.JSONField(default=list)
    started_at = models.DateTimeField()
    last_seen = models.DateTimeField()
    stopped_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["kind", "-last_seen"]
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "hostname", "pid", "started_at"], name="one_row_per_process"
            )
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.hostname} (pid {self.pid})"
