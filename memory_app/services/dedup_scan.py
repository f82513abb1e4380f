"""The full dedup scan shared by every Celery worker.

The run's own task (the coordinator) snapshots the vectors and plans the blocks
(``memory.dedup_queue``), queues ``QQ_DEDUP_BLOCK_TASKS`` block tasks, then computes
blocks itself until none is left unclaimed, waits for the ones other workers hold (taking
over a claim gone stale: a crashed worker's), and reports progress as blocks finish. Each
block task computes blocks until none is left, the run is closed, or a cancel is asked.
A worker added while the scan runs takes blocks too: the time divides by the workers.

The coordinator's ``progress`` raises when a cancel is asked: the scan's files are then
removed, which also stops the block tasks at their next block. The pairs go into the
review queue exactly as the single-process scan's did (``services.review``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from celery import current_app
from django.conf import settings

from memory_app.memory.dedup_queue import ScanQueue
from memory_app.models import MaintenanceRun
from memory_app.services.runs import run_cancel_requested
from memory_app.stores import notes_store

logger = logging.getLogger(__name__)
BLOCK_TASK = "memory_app.dedup_block"
WAIT_S = 0.2  # between looks at blocks other workers hold


def scan_queue(run_id: int) -> ScanQueue:
    return ScanQueue(settings.QQ_DEDUP_SCAN_DIR, f"run-{run_id}")


@dataclass(frozen=True)
class SharedScan:
    pairs: list[tuple[str, str, float]]  # (note_a, note_b, similarity), most similar first
    blocks: int
    blocks_here: int  # computed by the coordinator; the rest by block tasks

    @property
    def stats(self) -> dict[str, int]:
        return {"blocks": self.blocks, "blocks_by_other_tasks": self.blocks - self.blocks_here}


def duplicates_find_shared(
    *, run: MaintenanceRun, threshold: float, progress: Callable[[int, int], None] | None = None
) -> SharedScan:
    """Every pair above ``threshold``, computed in blocks that every worker shares."""
    queue = scan_queue(run.pk)
    here = 0
    try:
        total = queue.prepare(
            notes_store().vectors_by_dimension(),
            threshold,
            exact_below=settings.QQ_DEDUP_EXACT_BELOW,
            per_block=settings.QQ_DEDUP_PAIRS_PER_BLOCK,
        )
        if progress is not None:
            progress(0, total)
        _spread(run.pk, min(total - 1, settings.QQ_DEDUP_BLOCK_TASKS))
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
        return SharedScan(queue.pairs(), total, here)
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
        run = MaintenanceRun.objects.filter(pk=run_id).first()
        if run is None or run.status in MaintenanceRun.CLOSED or run_cancel_requested(run):
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
