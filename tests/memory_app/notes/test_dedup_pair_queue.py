"""The dedup scan's block queue on files: a removed scan leaves nothing on disk, even while
a block task of another worker still writes its results into it."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

from memory_app.notes.lib.dedup.pair_queue import ScanQueue


def _planned(root: Path) -> ScanQueue:
    queue = ScanQueue(root, "run-1")
    vectors = np.random.default_rng(7).standard_normal((40, 8)).astype(np.float32)
    queue.prepare({8: ([f"n{i}" for i in range(40)], vectors)}, 0.5)
    return queue


def test_removing_a_scan_while_a_block_task_writes_into_it_leaves_no_folder(tmp_path):
    queue = _planned(tmp_path)
    pairs = queue.path / "d8" / "pairs"
    written = []

    def block_task_writing(started: threading.Event, stop: threading.Event) -> None:
        n = 0  # results as fast as a worker could write them
        while not stop.is_set():
            try:
                (pairs / f"{n}.npz").write_bytes(b"pairs")
            except FileNotFoundError:  # the scan was taken away: the task stops
                return
            written.append(n)
            n += 1
            started.set()

    for _ in range(20):  # the race needs the writer inside the folder while it goes
        started, stop = threading.Event(), threading.Event()
        writer = threading.Thread(target=block_task_writing, args=(started, stop), daemon=True)
        writer.start()
        started.wait(5)
        queue.remove()
        writer.join(5)
        stop.set()  # a writer still going found the folder still there
        assert not queue.path.exists()
        assert not writer.is_alive()
        queue = _planned(tmp_path)
    queue.remove()
    assert written, "the writer never wrote: the test tested nothing"
    assert list(tmp_path.iterdir()) == []


def test_a_block_task_that_arrives_after_the_removal_claims_and_writes_nothing(tmp_path):
    queue = _planned(tmp_path)
    ref = next(queue.blocks())
    queue.remove()
    assert not queue.ready()
    assert not queue.claim(ref)
    assert queue.next_claim() is None
    assert list(tmp_path.iterdir()) == []
