"""qqweb's own state about the facts store, in qqweb's database, never in the agent's
collection (contract 4.4 rules 3 and 8: the agent's updates wipe any field of ours, and
its first version counted any document with ``content`` as a fact).

Every row names the store it is about (``location``: ``database.collection``), so two
facts stores never mix. Documents are kept exactly, as MongoDB canonical Extended JSON
(``$oid``, ``$date``, ``$numberDouble``): a restore writes back the very bytes."""

from __future__ import annotations

from django.db import models
from django.utils import timezone


class ArchivedFact(models.Model):
    """A snapshot of a document, written before qqweb deletes it (or when the vanished
    tracker finds the agent deleted it). Restorable."""

    ARCHIVE = "archive"  # the curator deleted it
    RESOLUTION = "resolution"  # archived so that a qqweb write leaves no >= 0.95 pair
    KEEP_OLDER = "keep-older"
    KEEP_NEWER_TEXT = "keep-newer-text"
    DELETE_BOTH = "delete-both"
    VANISHED = "vanished"  # the agent deleted it; this is the tracker's last snapshot
    UNDO = "undo"  # archived by the undo of a create or a restore

    location = models.CharField(max_length=300, db_index=True)
    fact_id = models.CharField(max_length=64, db_index=True)  # the hex _id it had
    content = models.TextField(blank=True)
    timestamp = models.DateTimeField(null=True, blank=True)  # for display; exact in document
    document = models.TextField()  # canonical Extended JSON of the whole document
    reason = models.CharField(max_length=20)
    detail = models.TextField(blank=True)  # e.g. the pair, or the vanished fact's cause
    actor = models.CharField(max_length=200)
    batch_id = models.UUIDField(null=True, blank=True)
    archived_at = models.DateTimeField(default=timezone.now, db_index=True)
    restored_at = models.DateTimeField(null=True, blank=True)
    restored_id = models.CharField(max_length=64, blank=True)  # the _id it came back under

    class Meta:
        ordering = ["-archived_at", "-id"]

    def __str__(self) -> str:
        return f"{self.fact_id} ({self.reason})"


class PairVerdict(models.Model):
    """A curator's verdict on a "possible contradiction" (0.85 <= cosine < 0.95), kept by
    the two contents' hashes (sorted): it holds while both texts stay as they were."""

    BOTH_TRUE = "both-true"  # not a contradiction: hidden from the list
    CONTRADICTION = "contradiction"  # to fix: stays listed, marked
    VERDICTS = [(BOTH_TRUE, "both true"), (CONTRADICTION, "contradiction")]

    location = models.CharField(max_length=300)
    hash_a = models.CharField(max_length=64)
    hash_b = models.CharField(max_length=64)
    verdict = models.CharField(max_length=20, choices=VERDICTS)
    actor = models.CharField(max_length=200)
    decided_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["location", "hash_a", "hash_b"], name="facts_pair_once")
        ]

    def __str__(self) -> str:
        return f"{self.hash_a[:8]}/{self.hash_b[:8]}: {self.verdict}"


class JudgedPair(models.Model):
    """The pair judge's probabilities (qqweb.lib.judge.model.CLASSES order) for two texts,
    the older first, kept by their contents' hashes: the facts pages judge a pair once,
    the first time they show it, never again while both texts stay as they are."""

    hash_older = models.CharField(max_length=64)
    hash_newer = models.CharField(max_length=64)
    judged = models.JSONField()
    judged_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["hash_older", "hash_newer"], name="facts_judged_once")
        ]

    def __str__(self) -> str:
        return f"{self.hash_older[:8]}/{self.hash_newer[:8]}"


class SeenFact(models.Model):
    """The vanished-facts tracker (contract 4.8): the last snapshot of every fact a scan
    saw. A fact that is gone at a later scan gets ``vanished_at``, its cause and an
    archived copy to restore from."""

    REPLACED = "replaced"  # by the agent's update (delete, then insert of a new text)
    DUPLICATE = "duplicate"  # by its cleanup, as the newer of a >= 0.95 pair
    UNKNOWN = "unknown"
    QQWEB = "qqweb"  # archived by qqweb itself: not listed as vanished
    CAUSES = [
        (REPLACED, "replaced"),
        (DUPLICATE, "duplicate"),
        (UNKNOWN, "unknown"),
        (QQWEB, "qqweb"),
    ]

    location = models.CharField(max_length=300)
    fact_id = models.CharField(max_length=64)
    content_hash = models.CharField(max_length=64)
    content = models.TextField(blank=True)
    document = models.TextField()  # canonical Extended JSON, as last seen
    first_seen = models.DateTimeField(default=timezone.now)
    last_seen = models.DateTimeField(default=timezone.now)
    vanished_at = models.DateTimeField(null=True, blank=True, db_index=True)
    cause = models.CharField(max_length=20, choices=CAUSES, blank=True)
    related_id = models.CharField(max_length=64, blank=True)  # the update or the survivor
    related_content = models.TextField(blank=True)
    score = models.FloatField(null=True, blank=True)
    archive = models.ForeignKey(ArchivedFact, null=True, blank=True, on_delete=models.SET_NULL)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["location", "fact_id"], name="facts_seen_once")
        ]
        ordering = ["-vanished_at", "-id"]

    def __str__(self) -> str:
        return f"{self.fact_id} ({self.cause or 'seen'})"
