"""Django-side state of the notes memory: promotion verdicts, the review queue. (The audit
log is the audit app's: :mod:`qqweb.audit.models`; runs and job locks are the jobs app's:
:mod:`qqweb.jobs.models`.)"""

from __future__ import annotations

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
    # The pair judge's probabilities (qqweb.lib.judge.model.CLASSES order) for the texts of
    # hash_a and hash_b, computed once by the scan that queued the pair; null when the
    # judge is not installed (the rules alone judge the pair then).
    judged = models.JSONField(null=True, blank=True)
    # A verdict being given: taken by one conditional UPDATE (only of a pending pair no
    # one holds, :func:`memory_app.notes.services.review.review_verdict`), so two curators
    # judging the pair at once give one verdict; cleared when the verdict is recorded or
    # fails. A claim whose process is gone (``claim_process``: host and pid; on this host,
    # a pid that no longer runs) or older than ``CLAIM_EXPIRES_S`` is taken over.
    claimed_at = models.DateTimeField(null=True, blank=True)
    claimed_by = models.CharField(max_length=200, blank=True)
    claim_process = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["-similarity", "id"]
        constraints = [
            models.UniqueConstraint(fields=["note_a", "note_b"], name="one_review_per_pair")
        ]

    def __str__(self) -> str:
        return f"{self.note_a} ~ {self.note_b} ({self.similarity:.2f}, {self.status})"
