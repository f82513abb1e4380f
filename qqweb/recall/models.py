"""Memory tests in qqweb's database: the pins ("when the agent is asked ``query``, it must
recall ``item_id``"), and every run of them with each pin's result (the history)."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from qqweb.lib.fields import NulSafeJSONField

MAX_QUERY = 1000
MAX_ITEM_ID = 1000  # a core note's id is "core:" and its text
MAX_COMMENT = 1000


class Pin(models.Model):
    """A pinned recall. ``item_text`` is the item's text when it was pinned, to name it
    once it is gone (archived, merged, deleted)."""

    source = models.CharField(max_length=20, default="notes")
    query = models.CharField(max_length=MAX_QUERY)
    item_id = models.CharField(max_length=MAX_ITEM_ID)
    item_text = models.TextField(blank=True)
    comment = models.TextField(blank=True)
    created_by = models.CharField(max_length=200)  # the actor's label
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["source", "query", "id"]
        constraints = [
            models.UniqueConstraint(fields=["source", "query", "item_id"], name="recall_pin_unique")
        ]

    def __str__(self) -> str:
        return f"{self.source}: {self.query!r} -> {self.item_id}"


class TestRun(models.Model):
    """One run of every pin. ``per_source`` holds, per source, its ``k``, ``pins``,
    ``passed``, ``recall_at_k`` and ``mrr``; ``recall_at_k`` and ``mrr`` are over every
    pin (each counted within its own source's ``k``)."""

    __test__ = False  # not a pytest class

    PAGE = "page"
    API = "api"
    COMMAND = "command"
    TRIGGERS = [(PAGE, "page"), (API, "API"), (COMMAND, "command")]

    trigger = models.CharField(max_length=20, choices=TRIGGERS)
    actor = models.CharField(max_length=200)
    started_at = models.DateTimeField(default=timezone.now, db_index=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    total = models.IntegerField(default=0)
    passed = models.IntegerField(default=0)
    failed = models.IntegerField(default=0)
    recall_at_k = models.FloatField(default=1.0)
    mrr = models.FloatField(default=1.0)
    per_source = models.JSONField(default=dict)
    # the job's run that made it (the worker's, or the command's in its own process);
    # None for the runs made before runs were jobs
    job_run = models.OneToOneField(
        "jobs.Run",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="memory_tests_run",
    )

    class Meta:
        ordering = ["-started_at", "-id"]

    def __str__(self) -> str:
        return f"run {self.pk}: {self.passed}/{self.total}"


class PinResult(models.Model):
    """A pin's result in a run, with a snapshot of the pin (it may be unpinned since).
    ``recalled_as`` is the item it was recalled through (a merge's survivor), ``reason``
    why it failed, ``outranked_by`` what the agent injected before it
    (``[{"id", "text", "score"}]``)."""

    run = models.ForeignKey(TestRun, on_delete=models.CASCADE, related_name="results")
    pin = models.ForeignKey(Pin, on_delete=models.SET_NULL, null=True, related_name="results")
    source = models.CharField(max_length=20)
    query = models.CharField(max_length=MAX_QUERY)
    item_id = models.CharField(max_length=MAX_ITEM_ID)
    item_text = models.TextField(blank=True)
    rank = models.IntegerField(null=True, blank=True)
    passed = models.BooleanField()
    reason = models.TextField(blank=True)
    recalled_as = models.CharField(max_length=MAX_ITEM_ID, blank=True)
    score = models.FloatField(null=True, blank=True)
    outranked_by = NulSafeJSONField(default=list)

    class Meta:
        ordering = ["run", "id"]

    def __str__(self) -> str:
        return f"{'PASS' if self.passed else 'FAIL'} {self.query!r} -> {self.item_id}"
