"""Django-side state of the audit app: the audit log."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone

from qqweb.lib.fields import NulSafeJSONField


class AuditEvent(models.Model):
    """One curation action: who, what, on which target, the state before and after, and
    the batch it belongs to. ``before`` holds enough to undo it. An event is written as
    ``pending`` before the store is touched and marked ``done`` after, so a crash leaves
    a visible trace of what was being attempted."""

    PENDING, DONE, FAILED = "pending", "done", "failed"
    STATUSES = [(PENDING, "pending"), (DONE, "done"), (FAILED, "failed")]

    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    actor = models.CharField(max_length=200, db_index=True)
    actor_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    action = models.CharField(max_length=50, db_index=True)
    target_type = models.CharField(max_length=20)
    target_id = models.CharField(max_length=300, db_index=True)
    # a note's text whole, NUL characters included (PostgreSQL's jsonb takes none as such)
    before = NulSafeJSONField(null=True, blank=True)
    after = NulSafeJSONField(null=True, blank=True)
    batch_id = models.UUIDField(default=uuid.uuid4, db_index=True)
    status = models.CharField(max_length=10, choices=STATUSES, default=PENDING)
    detail = models.TextField(blank=True)
    # set when an undo of this action begins (qqweb.audit.services._claim_undo), with the
    # process (host:pid) undoing it; given back when that undo fails
    undone_at = models.DateTimeField(null=True, blank=True)
    undo_process = models.CharField(max_length=300, blank=True)
    undo_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="undo_events"
    )

    class Meta:
        # The table the model had in memory_app, kept so existing logs stay where they are.
        db_table = "memory_app_auditevent"
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.actor} {self.action} {self.target_id}"
