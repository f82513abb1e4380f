"""Django-side state of the notes memory: promotion verdicts, maintenance runs, the review
queue. (The audit log is the audit app's: :mod:`qqweb.audit.models`.)"""

from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone


class PromotionVerdict(models.Model):
    """A curator's answer to a promotion candidate, remembered so it is not asked again
    (until the note's content changes: the verdict is keyed on a hash of it)."""

    APPROVED, REJECTED = "approved", "rejected"

    note_id = models.CharField(max_length=64)
    content_hash = models.CharField(max_length=64)
    verdict = models.CharField(max_length=10, choices=[(APPROVED, APPROVED), (REJECTED, REJECTED)])
    category = models.CharField(max_length=20, blank=True)
    decided_by = models.CharField(max_length=200)
    decided_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["note_id", "content_hash"], name="one_verdict_per_note_text"
            )
        ]

    def __str__(self) -> str:
        return f"{self.note_id}: {self.verdict}"


class MaintenanceRun(models.Model):
    """One run of a maintenance job (a Celery task or a command): who started it, with
    what, how far it got, and what it did. Pages poll it for progress.

    A dry run of a destructive job keeps its ``plan`` (the notes it would change, each
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
    params = models.JSONField(default=dict, blank=True)
    dry_run = models.BooleanField(default=False)
    status = models.CharField(max_length=10, choices=STATUSES, default=QUEUED)
    processed = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(null=True, blank=True)
    stats = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    task_id = models.CharField(max_length=64, blank=True)
    batch_id = models.UUIDField(default=uuid.uuid4, db_index=True)  # its audit events
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    cancel_requested_at = models.DateTimeField(null=True, blank=True)
    cancelled_by = models.CharField(max_length=200, blank=True)
    plan = models.JSONField(null=True, blank=True)
    plan_size = models.PositiveIntegerField(null=True, blank=True)  # len(plan), without loading it
    plan_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="applications"
    )
    undo_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="undo_runs"
    )

    class Meta:
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


class ReviewPair(models.Model):
    """A near-duplicate pair in the review queue. ``note_a`` < ``note_b``; the content
    hashes say which texts the verdict was about: a rejected pair comes back only when
    one of the two texts changes."""

    PENDING, MERGED, REJECTED, SKIPPED = "pending", "merged", "rejected", "skipped"
    SUPERSEDED = "superseded"  # "keep the newer text": the older note archived
    STATUSES = [(s, s) for s in (PENDING, MERGED, REJECTED, SKIPPED, SUPERSEDED)]

    note_a = models.CharField(max_length=64)
    note_b = models.CharField(max_length=64)
    hash_a = models.CharField(max_length=64)
    hash_b = models.CharField(max_length=64)
    similarity = models.FloatField(db_index=True)
    status = models.CharField(max_length=10, choices=STATUSES, default=PENDING, db_index=True)
    found_at = models.DateTimeField(default=timezone.now)
    decided_by = models.CharField(max_length=200, blank=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    primary = models.CharField(max_length=64, blank=True)
    # the audit event of the verdict (merge, supersede, not a duplicate): what "back" undoes
    event = models.ForeignKey(
        "audit.AuditEvent", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["-similarity", "id"]
        constraints = [
            models.UniqueConstraint(fields=["note_a", "note_b"], name="one_review_per_pair")
        ]

    def __str__(self) -> str:
        return f"{self.note_a} ~ {self.note_b} ({self.similarity:.2f}, {self.status})"


class JobLock(models.Model):
    """One job of a kind at a time. A lock expires, so a worker that died holding it
    cannot block the job forever; a live run renews it as it makes progress."""

    kind = models.CharField(max_length=40, unique=True)
    run = models.ForeignKey(MaintenanceRun, on_delete=models.CASCADE, related_name="+")
    expires_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.kind} held by run {self.run_id} until {self.expires_at:%H:%M:%S}"
