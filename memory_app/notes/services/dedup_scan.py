"""The full dedup scan shared by every Celery worker.

The run's own task (the coordinator) snapshots the vectors and plans the blocks
(``memory.dedup_queue``), queues ``BLOCK_TASKS`` block tasks, then computes
blocks itself until none is left unclaimed, waits for the ones other workers hold (taking
over a claim gone stale: a crashed worker's), and reports progress as blocks finish. Each
block task computes blocks until none is left, the run is closed, or a cancel is asked.
A worker added while the scan runs takes blocks too: the time divides by the workers.

The coordinator's ``progress`` raises when a cancel is asked: the scan's files are then
removed, which also stops the block tasks at their next block. The pairs go into the
review queue exactly as the single-process scan's did (``services.review``).

**Incremental by default**: when a complete scan exists (a dedup scan run that finished,
not a dry run, at this threshold or a lower one: ``last_complete_scan``; the runs table is
where the mark lives, so it survives restarts and a cancelled or failed run never moves
it), only the notes changed since that run started (``updated_at``, or put back by qqweb:
``notes_store().note_ids_changed_since``, minus ``clock_margin()`` for the agent's clock)
are compared, each with every note. A finished incremental scan is itself complete as of
its start (every pair with a note changed before was looked at, by it or by the scans
before it), so the next one starts from it. ``full`` (the Review page's "Full scan", the
job's ``full`` parameter) compares every note with every note, as does a scan that
finds more than half the notes changed (cheaper so: the full plan compares each pair once,
and prunes from ``QQ_DEDUP_EXACT_BELOW`` notes on).

The incremental scan takes the unchanged notes' vectors from the vector index's saved
segments (``_prepare_on_snapshot``, ``memory.dedup_base``) and reads from MongoDB only
the changed notes and those changed since the snapshot; every pair it finds is checked
against MongoDB's current vectors (``_confirmed``), so a note deleted since the snapshot
is never proposed. With no snapshot it reads every vector from MongoDB, as before.

The full scan takes every vector from the process's vector index once it is in step with
MongoDB (``_full_from_index``: its memory-mapped snapshot and its delta); the run's stats
say where the vectors came from (``vectors_read_from``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
from celery import current_app
from django.conf import settings

from memory_app.notes.lib import MongoNotesStore
from memory_app.notes.lib.dedup import blocks as dedup_blocks
from memory_app.notes.lib.dedup.base import base_ids, link_snapshot
from memory_app.notes.lib.dedup.pair_queue import ScanQueue, unit_rows
from memory_app.notes.stores import notes_store
from qqweb.jobs.models import Run
from qqweb.jobs.runs import run_cancel_requested

logger = logging.getLogger(__name__)
BLOCK_TASK = "memory_app.dedup_block"
WAIT_S = 0.2  # between looks at blocks other workers hold
# Block tasks queued beside the run's own, for other workers to take: more than the workers
# a deployment usually runs (one per core), so a worker added while the scan runs finds one;
# each task computes blocks until none is left, so a surplus costs one empty task each.
BLOCK_TASKS = 8
# How long the incremental scan waits for the process's vector index to be in step before
# it reads every vector from MongoDB instead: the wait is the index's catch-up after the
# worker started (reading every note's id and date, 9-18 s at 100k notes on the Python
# daemon), always less than that read of every vector (45 s there)
INDEX_WAIT_S = 120.0


def clock_margin() -> timedelta:
    """The agent stamps ``updated_at`` with its own clock: a note written a little before
    the mark by a clock that runs behind ours is compared again rather than missed
    (QQ_DEDUP_CLOCK_MARGIN_S)."""
    return timedelta(seconds=max(0, int(settings.QQ_DEDUP_CLOCK_MARGIN_S)))


def scan_queue(run_id: int) -> ScanQueue:
    return ScanQueue(settings.QQ_DEDUP_SCAN_DIR, f"run-{run_id}")


def last_complete_scan(*, threshold: float) -> Run | None:
    """The latest dedup scan that finished (not a dry run) at ``threshold`` or a lower one,
    by when it started: the incremental scan compares the notes changed since."""
    done = Run.objects.filter(
        kind="dedup_scan",
        status=Run.DONE,
        dry_run=False,
        started_at__isnull=False,
    ).order_by("-started_at", "-pk")
    for run in done.iterator():
        scanned_at = run.params.get("threshold")
        if isinstance(scanned_at, int | float) and float(scanned_at) <= threshold:
            return run
    return None


@dataclass(frozen=True)
class SharedScan:
    pairs: list[tuple[str, str, float]]  # (note_a, note_b, similarity), most similar first
    blocks: int
    blocks_here: int  # computed by the coordinator; the rest by block tasks
    notes: int  # notes with an embedding
    changed: int | None  # the incremental scan's changed notes (None: a full scan)
    from_snapshot: bool = False  # the unchanged notes' vectors came from the index's files

    @property
    def stats(self) -> dict[str, int | str]:
        return {
            "blocks": self.blocks,
            "blocks_by_other_tasks": self.blocks - self.blocks_here,
            "vectors_read_from": "vector index snapshot" if self.from_snapshot else "MongoDB",
        }


def _naive(when: datetime) -> datetime:
    return when.astimezone(UTC).replace(tzinfo=None)  # MongoDB's dates are naive UTC


def _changed_rows(
    groups: dict[int, tuple[list[str], np.ndarray]], since: datetime
) -> dict[int, np.ndarray]:
    """Per dimension, the rows of the notes changed since ``since`` (aware)."""
    changed = np.asarray(sorted(notes_store().note_ids_changed_since(_naive(since))), dtype=str)
    return {
        dim: np.flatnonzero(np.isin(np.asarray(ids, dtype=str), changed))
        for dim, (ids, _) in groups.items()
    }


Current = dict[str, np.ndarray | None]  # note id -> its unit vector now (None: gone)


def _prepare_on_snapshot(
    queue: ScanQueue, threshold: float, since: datetime
) -> tuple[int, int, int, Current] | None:
    """The incremental scan's plan on the vector index's saved segments: the unchanged
    notes' vectors from its memory-mapped files (``dedup_base``), from MongoDB only the
    notes changed since the last scan and those changed since the snapshot (their rows in
    it may be stale). (blocks, notes, changed notes, the vectors read), or None (nothing
    planned) with no usable snapshot, a changed note of a dimension the snapshot lacks, or
    more than half the notes changed: the caller then reads every vector from MongoDB."""
    if not settings.QQ_DEDUP_FROM_SNAPSHOT:
        return None
    store = notes_store()
    root = Path(settings.QQ_VECTOR_DIR) / f"{settings.QQ_MONGO_DB}.{settings.QQ_MONGO_COLLECTION}"
    queue.remove()
    queue.path.mkdir(parents=True)
    base = link_snapshot(root, store.index_generation(), queue.path)
    if base is None:
        queue.remove()
        return None
    known = _known_ids(store)
    if known is None:
        queue.remove()
        return None
    saved = base_ids(queue.path)
    changed = store.note_ids_changed_since(_naive(since))
    stale = store.note_ids_changed_since(base.newest - clock_margin())
    # notes deleted since the snapshot leave the base (read, not found); notes it never
    # held (written after it with an older ``updated_at``) are read from MongoDB
    read = changed | stale | (saved ^ known)
    fresh = store.vectors_of(read)
    changed_rows = sum(1 for ids, _ in fresh.values() for note_id in ids if note_id in changed)
    if set(fresh) - set(base.rows) or 2 * changed_rows > sum(base.rows.values()):
        queue.remove()
        return None
    current: Current = dict.fromkeys(read)
    for ids, matrix in fresh.values():
        current.update(zip(ids, unit_rows(matrix), strict=True))
    planned = queue.prepare_on_base(
        base.rows, fresh, read, changed, threshold, per_block=dedup_blocks.PAIRS_PER_BLOCK
    )
    return (*planned, current)


Groups = dict[int, tuple[list[str], np.ndarray]]  # dim -> (note ids, their vectors)


def _full_from_index() -> Groups | None:
    """The full scan's vectors from this process's vector index once it is in step with
    every write acknowledged before the scan (``VectorIndex.in_step``): the live rows of
    its memory-mapped snapshot and its delta, exactly what MongoDB holds then, read from
    local files instead of every document (40 of a full scan's 47 s at 100k notes on the
    Rust server). None (the caller reads MongoDB) with QQ_DEDUP_FROM_SNAPSHOT off, the
    index not open in this process yet (a worker opens it when it starts; a process that
    has not, ``manage.py dedup_scan``, reads MongoDB rather than wait for a first load), or
    not in step within ``INDEX_WAIT_S``."""
    if not settings.QQ_DEDUP_FROM_SNAPSHOT:
        return None
    index = notes_store().vector_index
    if index is None or not index.ready or not index.in_step(INDEX_WAIT_S):
        return None
    rows: Groups = index.rows_by_dimension()
    return rows


def _known_ids(store: MongoNotesStore) -> set[str] | None:
    """Every note id MongoDB holds, as this process's vector index knows them once it is
    in step with every write acknowledged before the scan (``VectorIndex.in_step``: the
    follower alone may be a second or more behind, and a note deleted meanwhile would be
    counted); None when it gets there not within ``INDEX_WAIT_S``: the scan then reads
    MongoDB."""
    index = store.vector_index
    if index is None or not index.in_step(INDEX_WAIT_S):
        return None
    return index.read(lambda model: set(model.rows))


def _confirmed(
    pairs: list[tuple[str, str, float]], threshold: float, current: Current
) -> list[tuple[str, str, float]]:
    """The pairs MongoDB's current vectors still make, with their current similarity: a
    note deleted since the index's snapshot (or changed without a new ``updated_at``) is
    never proposed from a stale row. ``current`` holds the notes read already (the
    changed ones); the others are read now."""
    if not pairs:
        return pairs
    current = dict(current)
    unread = {i for a, b, _ in pairs for i in (a, b)} - set(current)
    for ids, matrix in notes_store().vectors_of(unread).values():
        current.update(zip(ids, unit_rows(matrix), strict=True))
    kept = []
    for a, b, _ in pairs:
        va, vb = current.get(a), current.get(b)
        if va is None or vb is None or len(va) != len(vb):
            continue
        similarity = float(va @ vb)
        if similarity >= threshold:
            kept.append((a, b, similarity))
    kept.sort(key=lambda row: -row[2])
    return kept


def duplicates_find_shared(
    *,
    run: Run,
    threshold: float,
    progress: Callable[[int, int], None] | None = None,
    since: datetime | None = None,
) -> SharedScan:
    """Every pair above ``threshold``, computed in blocks that every worker shares; with
    ``since``, only the pairs with a note changed since then (the incremental scan), on
    the vector index's saved rows where it can (``_prepare_on_snapshot``)."""
    queue = scan_queue(run.pk)
    here = 0
    try:
        planned = None if since is None else _prepare_on_snapshot(queue, threshold, since)
        count: int | None
        from_index: Groups | None = None if since is not None else _full_from_index()
        if planned is not None:
            total, notes, count, current = planned
        else:
            groups = notes_store().vectors_by_dimension() if from_index is None else from_index
            notes = sum(len(ids) for ids, _ in groups.values())
            changed = None if since is None else _changed_rows(groups, since)
            if changed is not None and 2 * sum(len(r) for r in changed.values()) > notes:
                # most notes changed (a re-embed of every note): the full scan's plan costs
                # at most half as much, and is pruned at scale where changed rows are not
                changed = None
            total = queue.prepare(
                groups,
                threshold,
                exact_below=settings.QQ_DEDUP_EXACT_BELOW,
                per_block=dedup_blocks.PAIRS_PER_BLOCK,
                changed=changed,
            )
            count = None if changed is None else sum(len(rows) for rows in changed.values())
        if progress is not None:
            progress(0, total)
        _spread(run.pk, min(total - 1, BLOCK_TASKS))
        while True:
            ref = queue.next_claim()
            if ref is not None:
                queue.compute(ref)
                here += 1
            elif not queue.pending():
                break
            else:
                time.sleep(WAIT_S)
            if progress is not None:
                progress(queue.done_count(), total)
        pairs = queue.pairs()
        if planned is not None:
            pairs = _confirmed(pairs, threshold, current)
        from_snapshot = planned is not None or from_index is not None
        return SharedScan(pairs, total, here, notes, count, from_snapshot=from_snapshot)
    finally:
        queue.remove()


def _spread(run_id: int, count: int) -> None:
    """Queue ``count`` block tasks. A broker that does not take them (``manage.py
    dedup_scan`` with no broker running) leaves every block to this process."""
    try:
        for _ in range(count):
            current_app.send_task(BLOCK_TASK, args=[run_id], retry=False)
    except Exception:
        logger.warning("block tasks not queued: this process computes every block", exc_info=True)


def dedup_blocks_work(*, run_id: int) -> int:
    """A block task: compute blocks of run ``run_id``'s scan until none is left to claim,
    the run is closed, or a cancel is asked; the number of blocks computed."""
    queue = scan_queue(run_id)
    done = 0
    while queue.ready():
        run = Run.objects.filter(pk=run_id).first()
        if run is None or run.status in Run.CLOSED or run_cancel_requested(run):
            break
        try:
            ref = queue.next_claim()
            if ref is None:
                break
            queue.compute(ref)
        except FileNotFoundError:  # the coordinator removed the scan (cancelled, failed)
            break
        done += 1
    return done
