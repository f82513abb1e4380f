"""The near-duplicate review queue: the scan that fills it and the verdicts that empty it."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from memory_app.notes.errors import InvalidVerdict, PairDecided, PairNotFound
from memory_app.notes.models import ReviewPair
from memory_app.notes.selectors import content_hash
from memory_app.notes.selectors.review import review_last_decided
from memory_app.notes.services.merging import pair_merge_audited, pair_supersede
from memory_app.notes.stores import deduplicator, notes_store
from qqweb.audit.errors import UndoRefused
from qqweb.audit.models import AuditEvent
from qqweb.audit.services import audit_begin, audit_undo, audited
from qqweb.jobs.models import Run
from qqweb.lib.actors import Actor
from qqweb.lib.differences import differences
from qqweb.lib.errors import InvalidInput
from qqweb.lib.judge.model import judge_available, judge_pairs
from qqweb.lib.processes import process_gone, this_process

VERDICTS = ("merge", "supersede", "not_duplicate", "skip")


def duplicates_scan(
    *,
    run: Run,
    threshold: float,
    progress: Callable[[int, int], None] | None = None,
    rows: list[tuple[str, str, float]] | None = None,
) -> dict[str, int]:
    """Find every pair above ``threshold`` (or take ``rows``, the pairs a scan shared by
    the workers found) and queue the new ones. A pair judged "not a duplicate" stays out
    unless one of its texts changed; merged pairs are gone."""
    if not 0 < threshold <= 1:
        raise InvalidInput("threshold", "must be above 0 and at most 1")
    if rows is None:
        rows = deduplicator().find_similar_ids(threshold)
    stats = {
        "pairs_found": len(rows),
        "queued": 0,
        "already_queued": 0,
        "kept_rejected": 0,
        "reopened": 0,
        "judged_meanwhile": 0,
    }
    ids = {i for a, b, _ in rows for i in (a, b)}
    texts = {i: note.content for i, note in notes_store().notes_by_ids(ids).items()}
    existing = {
        (p.note_a, p.note_b): p for p in ReviewPair.objects.filter(note_a__in=ids, note_b__in=ids)
    }
    read_as = {p.pk: p.status for p in existing.values()}  # what each pair was when read
    judging = judge_available()
    new: list[ReviewPair] = []
    changed: list[ReviewPair] = []
    for index, (x, y, similarity) in enumerate(rows, start=1):
        a, b = sorted((x, y))
        if a not in texts or b not in texts:
            continue
        hashes = content_hash(texts[a]), content_hash(texts[b])
        pair = existing.get((a, b))
        if pair is None:
            new.append(
                ReviewPair(
                    note_a=a,
                    note_b=b,
                    hash_a=hashes[0],
                    hash_b=hashes[1],
                    similarity=round(similarity, 4),
                )
            )
            stats["queued"] += 1
        elif pair.status == ReviewPair.REJECTED and (pair.hash_a, pair.hash_b) == hashes:
            stats["kept_rejected"] += 1
        elif pair.status in (ReviewPair.REJECTED, ReviewPair.MERGED, ReviewPair.SUPERSEDED):
            if (pair.hash_a, pair.hash_b) != hashes or pair.judged is None:
                pair.judged = None  # judged again below, for the texts as they are now
            pair.status, pair.hash_a, pair.hash_b = ReviewPair.PENDING, *hashes
            pair.similarity = round(similarity, 4)
            changed.append(pair)
            stats["reopened"] += 1
        else:
            unjudged = pair.judged is None and judging  # queued before the judge was
            if (
                pair.status == ReviewPair.SKIPPED
                or pair.similarity != round(similarity, 4)
                or unjudged
            ):
                pair.status, pair.similarity = ReviewPair.PENDING, round(similarity, 4)
                changed.append(pair)  # a pair queued as it was is not written again
            stats["already_queued"] += 1
        if progress and (index % 200 == 0 or index == len(rows)):
            progress(index, len(rows))
    stats["judged"] = _judge([p for p in (*new, *changed) if p.judged is None], texts)
    stats["judged_meanwhile"] = _write_in_batches(new, changed, read_as)
    return stats


def _judge(pairs: list[ReviewPair], texts: dict[str, str]) -> int:
    """The pair judge's probabilities for ``pairs`` (new or with a changed text), once,
    in batches: stored with each pair, so no page view runs the model. How many were
    judged (0 without the judge installed)."""
    judged = (
        judge_pairs([(texts[p.note_a], texts[p.note_b]) for p in pairs], settings.QQ_JUDGE_THREADS)
        if pairs
        else None
    )
    if judged is None:
        return 0
    for pair, row in zip(pairs, judged, strict=True):
        pair.judged = row
    return len(pairs)


SCAN_WRITE_BATCH = 100
# New pairs are inserted 500 a batch: an INSERT of 500 rows held SQLite's lock 19 ms here
# (100: 8 ms; 1,000: 114 ms), so a scan queuing 1,000 new pairs pauses once, not 9 times
# (2.25 s of a 100k full scan's 20 s).
SCAN_CREATE_BATCH = 500
# After each batch the scan lets go of the database this long: SQLite's busy handler has a
# waiting writer retry at least every 0.1 s, so each one gets its turn between two batches
# instead of waiting out the busy timeout behind back-to-back transactions. 0.1 s was
# exactly the retry interval: on a loaded machine (load 8 on 2 cores) a waiting writer
# sometimes woke just after the pause ended, again and again, and a promotion waited out
# a 1 s busy timeout; 0.25 s leaves every waiter two retries per pause (a 16,000-pair
# rescan: 160 batches of 100, 40 s of pauses in a background job). 100 a batch rather
# than 250: Django builds each batch's UPDATE inside the transaction, so the lock is held
# for that Python work too, and on a starved CPU 250 rows held it past a second.
SCAN_WRITE_PAUSE_S = 0.25


def _write_in_batches(
    new: list[ReviewPair], changed: list[ReviewPair], read_as: dict[int, str]
) -> int:
    """The scan's rows, a few hundred per short transaction, a pause after each: never
    one write per pair, never one long transaction nor a train of them holding the
    database (SQLite has one writer) while people curate or scripts call the API.

    A curator may judge a pair while the scan runs (a rescan of 16k pairs takes minutes):
    each batch of updates first reads its pairs' status again, in the same transaction
    (``IMMEDIATE`` on SQLite, ``select_for_update`` elsewhere: nobody writes between the
    read and the write), and leaves out every pair whose status is no longer the one the
    scan read, so a verdict given meanwhile is never put back in the queue. How many were
    left out is returned (the run's ``judged_meanwhile``)."""
    batches: list[Callable[[], int]] = [
        partial(_create, new[start : start + SCAN_CREATE_BATCH])
        for start in range(0, len(new), SCAN_CREATE_BATCH)
    ]
    batches += [
        partial(_update_unjudged, changed[start : start + SCAN_WRITE_BATCH], read_as)
        for start in range(0, len(changed), SCAN_WRITE_BATCH)
    ]
    skipped = 0
    for index, write in enumerate(batches):
        if index:
            time.sleep(SCAN_WRITE_PAUSE_S)
        with transaction.atomic():
            skipped += write()
    return skipped


def _create(pairs: list[ReviewPair]) -> int:
    ReviewPair.objects.bulk_create(pairs, ignore_conflicts=True)
    return 0


def _update_unjudged(pairs: list[ReviewPair], read_as: dict[int, str]) -> int:
    """Write ``pairs`` whose status is still what the scan read; how many were not."""
    now = dict(
        ReviewPair.objects.select_for_update()
        .filter(pk__in=[p.pk for p in pairs])
        .values_list("pk", "status")
    )
    keep = [p for p in pairs if now.get(p.pk) == read_as.get(p.pk)]
    ReviewPair.objects.bulk_update(keep, ["status", "hash_a", "hash_b", "similarity", "judged"])
    return len(pairs) - len(keep)


def review_verdict(
    *,
    actor: Actor,
    pair_id: int,
    verdict: str,
    primary_id: str | None = None,
    content: str | None = None,
) -> ReviewPair:
    """merge (into ``primary_id``, optionally with the curator's text), supersede ("keep
    the newer text": the newer note survives, the older is archived), not_duplicate
    (remembered), or skip (asked again later). Without ``primary_id`` the merge keeps the
    agent's primary (``NoteDeduplicator.ordered``: the higher importance), as
    auto-consolidation does, except for a pair whose texts contradict each other: that
    merge needs ``primary_id``. The verdict's audit event is kept on the pair, for
    :func:`review_back`.

    A pair gets one verdict: the request first claims it (:func:`_claim`, one conditional
    UPDATE, atomic on SQLite and PostgreSQL alike), so of two curators judging it at the
    same moment one gives the verdict and the other is refused (PairDecided, 409), as is
    a verdict on a pair judged already."""
    if verdict not in VERDICTS:
        raise InvalidVerdict("verdict", f"must be one of {', '.join(VERDICTS)}")
    pair = ReviewPair.objects.filter(pk=pair_id).first()
    if pair is None:
        raise PairNotFound(pair_id)
    if pair.status != ReviewPair.PENDING:
        raise PairDecided(pair.pk, pair.status, pair.decided_by)
    if verdict == "merge":
        if primary_id is not None and primary_id not in (pair.note_a, pair.note_b):
            raise InvalidVerdict("primary_id", "must be one of the two notes")
        if primary_id is None:
            _refuse_unchosen_contradiction(pair)
    claimed_at = _claim(pair, actor)
    try:
        return _give(pair, actor, verdict, primary_id, content)
    except BaseException:
        _release(pair, claimed_at)
        raise


CLAIM_EXPIRES_S = 600  # a verdict takes seconds; a claim this old is a request that died


def _claim(pair: ReviewPair, actor: Actor) -> datetime:
    """Take the pair for this request's verdict: one UPDATE of the pair if it is still
    pending and nobody holds it (or the holder's claim expired). Whoever's UPDATE comes
    second finds no such row (PostgreSQL re-reads the row it waited for; SQLite has one
    writer) and is refused, naming who decided it or is deciding it. A claim whose
    process died (a worker killed mid-verdict, on this host) is taken over at once, with
    the same conditional UPDATE on that claim: the curator's retry finishes the verdict."""
    now = timezone.now()
    free = Q(claimed_at__isnull=True) | Q(claimed_at__lt=now - timedelta(seconds=CLAIM_EXPIRES_S))
    mine = {"claimed_at": now, "claimed_by": actor.label, "claim_process": this_process()}
    pending = ReviewPair.objects.filter(pk=pair.pk, status=ReviewPair.PENDING)
    if pending.filter(free).update(**mine):
        return now
    current = ReviewPair.objects.filter(pk=pair.pk).first()
    if current is None:
        raise PairNotFound(pair.pk)
    if current.status != ReviewPair.PENDING:
        raise PairDecided(current.pk, current.status, current.decided_by)
    held = {"claimed_at": current.claimed_at, "claim_process": current.claim_process}
    if process_gone(current.claim_process) and pending.filter(**held).update(**mine):
        return now
    raise PairDecided(current.pk, current.status, current.claimed_by, deciding=True)


def _release(pair: ReviewPair, claimed_at: datetime) -> None:
    """A verdict that failed lets go of its pair (pending as it was), unless its claim
    expired and another request holds the pair now."""
    ReviewPair.objects.filter(pk=pair.pk, claimed_at=claimed_at).update(
        claimed_at=None, claimed_by="", claim_process=""
    )


def _give(
    pair: ReviewPair, actor: Actor, verdict: str, primary_id: str | None, content: str | None
) -> ReviewPair:
    """The verdict on the claimed ``pair``, written and recorded."""
    if verdict == "merge":
        merged, event = pair_merge_audited(
            actor=actor,
            note_a_id=pair.note_a,
            note_b_id=pair.note_b,
            primary_id=primary_id or None,  # None: the agent's rule, decided by the merge
            content=content or None,
            similarity=pair.similarity,
        )
        return _decide(pair, ReviewPair.MERGED, actor, merged.note_id, event)
    if verdict == "supersede":
        kept, event = pair_supersede(
            actor=actor, note_a_id=pair.note_a, note_b_id=pair.note_b, similarity=pair.similarity
        )
        return _decide(pair, ReviewPair.SUPERSEDED, actor, kept.note_id, event)
    if verdict == "skip":
        return _decide(pair, ReviewPair.SKIPPED, actor, "")
    event = audit_begin(
        actor, "pair.reject", "pair", f"{pair.note_a} ~ {pair.note_b}", {"pair_id": pair.pk}, None
    )

    def write() -> dict[str, int]:
        _decide(pair, ReviewPair.REJECTED, actor, "", event)
        return {"pair_id": pair.pk}

    audited(event, write)
    return pair


def _refuse_unchosen_contradiction(pair: ReviewPair) -> None:
    """A pair whose texts contradict each other (one negates the other) is merged only
    into the note the curator chose: no rule picks which of two opposite facts survives."""
    store = notes_store()
    a, b = store.note(pair.note_a), store.note(pair.note_b)
    if a is None or b is None:
        return  # the merge says which note is gone
    found = [d for d in differences(a.content, b.content) if d.contradiction]
    if found:
        said = " / ".join(", ".join(side) for side in (found[0].left, found[0].right))
        raise InvalidVerdict(
            "primary_id",
            f"the two notes contradict each other ({said}): choose the note to keep "
            "(or judge them not duplicates)",
        )


def _decide(
    pair: ReviewPair, status: str, actor: Actor, primary: str, event: AuditEvent | None = None
) -> ReviewPair:
    with transaction.atomic():
        pair.status, pair.decided_by, pair.primary = status, actor.label, primary
        pair.decided_at, pair.event = timezone.now(), event
        pair.claimed_at, pair.claimed_by, pair.claim_process = None, "", ""
        pair.save(update_fields=[*DECIDED_FIELDS, "claimed_at", "claimed_by", "claim_process"])
    return pair


DECIDED_FIELDS = ["status", "decided_by", "decided_at", "primary", "event"]


def review_back(*, actor: Actor) -> ReviewPair:
    """Back: undo ``actor``'s latest verdict and put its pair back in the queue. A merge
    or a supersede is undone through the audit log (the notes and the archive as they
    were; refused with the reason when a note changed since, as any undo), "not a
    duplicate" likewise, a skip simply becomes pending again."""
    pair = review_last_decided(actor=actor)
    if pair is None:
        raise InvalidVerdict("verdict", "there is no verdict of yours to take back")
    if pair.status == ReviewPair.SKIPPED:
        _reopen(pair)
        return pair
    if pair.event_id is None:  # a verdict from before verdicts kept their event
        raise InvalidVerdict("verdict", "this verdict has no audit event here: undo it in Audit")
    try:
        audit_undo(actor=actor, event_id=pair.event_id)
    except UndoRefused as e:
        raise InvalidVerdict("verdict", f"the last verdict cannot be taken back: {e.reason}") from e
    pair.refresh_from_db()
    if pair.status != ReviewPair.PENDING:  # undone, but the pair was not found by the undo
        _reopen(pair)
    return pair


def _reopen(pair: ReviewPair) -> None:
    pair.status, pair.decided_by, pair.decided_at, pair.primary = ReviewPair.PENDING, "", None, ""
    pair.event = None
    pair.save(update_fields=["status", "decided_by", "decided_at", "primary", "event"])


def _undo_pair_reject(before: dict[str, Any], after: Any) -> dict[str, Any]:
    pair = ReviewPair.objects.filter(pk=before["pair_id"]).first()
    if pair is not None:
        _reopen(pair)
    return before


UNDO_HANDLERS = {"pair.reject": _undo_pair_reject}  # registered in MemoryAppConfig.ready()
