"""A run (one execution of a job) and the lock that keeps one run of a kind at a time.

These models moved here from memory_app (where they were ``MaintenanceRun`` and
``JobLock``). Their tables keep their names (``memory_app_maintenancerun``,
``memory_app_joblock``), set with ``db_table``: the move changes only Django's migration
state (``SeparateDatabaseAndState`` in this app's 0001 and memory_app's 0008), never a
table, so an existing database migrates forward with every run, lock and plan it holds,
and the migration is safe to run on a live database (nothing is copied or renamed).
"""

from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone

from qqweb.lib.fields import NulSafeJSONField


class Run(models.Model):
    """One run of a job (in the worker or a command): who started it, with what, how far
    it got, and what it did. Pages poll it for progress.

    A dry run of a destructive job keeps its ``plan`` (the items it would change, each
    with the value it was planned on); a run with ``plan_of`` applies exactly that plan.
    A run of kind ``undo`` undoes the run ``undo_of``. ``cancel_requested_at`` asks a
    running run to stop at its next batch boundary; ``heartbeat_at`` is its last sign
    of life (the reaper closes runs that show none)."""

    QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"
    CANCELLED = "cancelled"
    STATUSES = [(s, s) for s in (QUEUED, RUNNING, DONE, FAILED, CANCELLED)]
    OPEN = (QUEUED, RUNNING)
    CLOSED = (DONE, FAILED, CANCELLED)

    kind = models.CharField(max_length=40, db_index=True)
    started_by = models.CharField(max_length=200)
    params = NulSafeJSONField(default=dict, blank=True)
    dry_run = models.BooleanField(default=False)
    # started with confirm_lost_pins=true: a run of a destructive job applies its plan even
    # though it loses pinned recalls (else its plan waits for review: docs/jobs.md)
    confirm_lost_pins = models.BooleanField(default=False)
    status = models.CharField(max_length=10, choices=STATUSES, default=QUEUED)
    processed = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(null=True, blank=True)
    stats = NulSafeJSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    task_id = models.CharField(max_length=64, blank=True)
    batch_id = models.UUIDField(default=uuid.uuid4, db_index=True)  # its audit events
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    cancel_requested_at = models.DateTimeField(null=True, blank=True)
    cancelled_by = models.CharField(max_length=200, blank=True)
    plan = NulSafeJSONField(null=True, blank=True)
    plan_size = models.PositiveIntegerField(null=True, blank=True)  # len(plan), without loading it
    plan_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="applications"
    )
    undo_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="undo_runs"
    )

    class Meta:
        db_table = "memory_app_maintenancerun"
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk} {self.status}"

    @property
    def is_open(self) -> bool:
        return self.status in self.OPEN

    @property
    def percent(self) -> int:
        if not self.total:
            return 100 if self.status == self.DONE else 0
        return min(100, round(100 * self.processed / self.total))


class JobLock(models.Model):
    """One run of a job at a time. A lock expires, so a worker that died holding it
    cannot block the job forever; a live run renews it as it makes progress."""

    kind = models.CharField(max_length=40, unique=True)
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="+")
    expires_at = models.DateTimeField()

    class Meta:
        db_table = "memory_app_joblock"

    def __str__(self) -> str:
        return f"{self.kind} held by run {self.run_id} until {self.expires_at:%H:%M:%S}"
