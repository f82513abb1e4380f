"""A dedup scan's (full or incremental) work queue of blocks, on files every worker can
reach (under ``QQ_DEDUP_SCAN_DIR``, by default ``var/dedup-scans/``, like the vector
index's segments).

The run's coordinator writes, per embedding dimension, the unit float32 vectors
(``vectors.npy``, opened memory-mapped by every worker), the note ids and the plan (exact
row ranges, or the pruned plan's cells); then any worker claims a block (an ``O_EXCL``
file: one claimer at a time), computes its pairs and writes them atomically (a temporary
file renamed into place). A block's pairs depend only on the snapshot, so a block computed
twice (a crash after the write, a redelivered task, a stale claim taken over) writes the
same file again: nothing is doubled. A claim older than ``stale_s`` with no result is
taken as a crashed worker's and claimed again.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from memory_app.notes.lib.dedup.blocks import (
    EXACT_BELOW,
    PAIRS_PER_BLOCK,
    Cells,
    Pairs,
    cell_block_pairs,
    cell_blocks,
    cells_plan,
    changed_block_pairs,
    changed_blocks,
    changed_pairs_on_base,
    exact_block_pairs,
    exact_blocks,
    join_pairs,
)

TRASH_PREFIX = ".removed-"  # a scan's folder on its way out (``ScanQueue.remove``)
STALE_S = 120.0  # a claim this old with no result is a crashed worker's (a block: 1-30 s)


def unit_rows(matrix: np.ndarray, chunk: int = 65_536) -> np.ndarray:
    """``matrix`` as unit float32 rows, normalised in place when it is float32 already
    (the store's fresh matrix: no second copy of 1.5 GB at 1M notes)."""
    unit = np.asarray(matrix, dtype=np.float32)
    if not unit.flags.writeable:
        unit = unit.copy()
    for c0 in range(0, len(unit), chunk):
        rows = unit[c0 : c0 + chunk]
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        rows /= norms
    return unit


@dataclass(frozen=True)
class BlockRef:
    group: str  # the dimension's folder, e.g. "d384"
    index: int


class ScanQueue:
    """The files of one run's scan: ``<root>/<name>/<group>/...``."""

    def __init__(self, root: Path, name: str, *, stale_s: float = STALE_S) -> None:
        self.path = Path(root) / name
        self.stale_s = stale_s

    # --- writing the snapshot and plan (the coordinator) ---------------------------------

    def prepare(
        self,
        groups: dict[int, tuple[list[str], np.ndarray]],
        threshold: float,
        *,
        exact_below: int = EXACT_BELOW,
        per_block: float = PAIRS_PER_BLOCK,
        changed: dict[int, np.ndarray] | None = None,
    ) -> int:
        """Snapshot each dimension's vectors (normalised in place, taken out of ``groups``
        so each matrix is freed once on disk) and plan its blocks; the number of blocks.
        With ``changed`` (per dimension, the row indices of the notes changed since the
        last complete scan) the incremental scan: only those rows against every row.
        Done again (a coordinator redelivered), it starts afresh."""
        self.remove()
        total = 0
        for dim in sorted(groups):
            ids, matrix = groups.pop(dim)  # let each matrix go once it is on disk
            folder = self.path / f"d{dim}"
            (folder / "pairs").mkdir(parents=True)
            (folder / "claims").mkdir()
            np.save(folder / "vectors.npy", unit_rows(matrix))
            del matrix
            np.save(folder / "ids.npy", np.asarray(ids, dtype=str))
            unit = np.load(folder / "vectors.npy", mmap_mode="r")
            if changed is not None:
                rows = np.unique(np.asarray(changed.get(dim, []), dtype=np.int64))
                np.save(folder / "changed.npy", rows)
                blocks = changed_blocks(len(ids), len(rows), per_block)
                kind = "changed"
            elif len(ids) < exact_below:
                blocks = exact_blocks(len(ids), per_block)
                kind = "exact"
            else:
                cells = cells_plan(unit)
                np.save(folder / "assign.npy", cells.assign)
                np.save(folder / "members.npy", cells.members)
                np.save(folder / "offsets.npy", cells.offsets)
                blocks = cell_blocks(cells, per_block)
                kind = "pruned"
            del unit
            meta = {"kind": kind, "threshold": threshold, "blocks": blocks, "rows": len(ids)}
            (folder / "plan.json").write_text(json.dumps(meta))
            total += len(blocks)
        self.path.mkdir(parents=True, exist_ok=True)  # no vectors at all: an empty plan
        (self.path / "ready").write_text(str(total))
        return total

    def prepare_on_base(
        self,
        base_rows: dict[int, int],
        fresh: dict[int, tuple[list[str], np.ndarray]],
        read: set[str],
        changed: set[str],
        threshold: float,
        *,
        per_block: float = PAIRS_PER_BLOCK,
    ) -> tuple[int, int, int]:
        """The incremental scan on the vector index's saved rows (``base.npy`` and
        ``base_ids.npy`` already linked into ``d<dim>/`` by ``dedup_base.link_snapshot``,
        ``base_rows`` of them per dimension): the rows of every note in ``read`` (the
        notes read from MongoDB again, found or not) are taken out of the base, the found
        ones (``fresh``) appended, and the ``changed`` ones among them compared with every
        live row. Returns (blocks, notes, changed notes)."""
        total = notes = count = 0
        read_ids = np.asarray(sorted(read), dtype=str)
        for dim in sorted(set(base_rows) | set(fresh)):
            folder = self.path / f"d{dim}"
            (folder / "pairs").mkdir(parents=True)
            (folder / "claims").mkdir()
            if dim in base_rows:
                base_ids = np.load(folder / "base_ids.npy")
                live = ~np.isin(base_ids, read_ids)
            else:
                np.save(folder / "base.npy", np.zeros((0, dim), dtype=np.float32))
                np.save(folder / "base_ids.npy", np.zeros(0, dtype=str))
                live = np.zeros(0, dtype=bool)
            ids, matrix = fresh.pop(dim, ([], np.zeros((0, dim), dtype=np.float32)))
            np.save(folder / "live.npy", live)
            np.save(folder / "fresh.npy", unit_rows(matrix))
            np.save(folder / "fresh_ids.npy", np.asarray(ids, dtype=str))
            rows = np.asarray(
                [len(live) + k for k, note_id in enumerate(ids) if note_id in changed],
                dtype=np.int64,
            )
            np.save(folder / "changed.npy", rows)
            here = int(live.sum()) + len(ids)
            blocks = changed_blocks(here, len(rows), per_block)
            meta = {"kind": "changed_base", "threshold": threshold, "blocks": blocks, "rows": here}
            (folder / "plan.json").write_text(json.dumps(meta))
            total, notes, count = total + len(blocks), notes + here, count + len(rows)
        (self.path / "ready").write_text(str(total))
        return total, notes, count

    # --- the blocks (any worker) ---------------------------------------------------------

    def ready(self) -> bool:
        return (self.path / "ready").exists()

    def groups(self) -> list[str]:
        return sorted(p.name for p in self.path.iterdir() if p.is_dir()) if self.ready() else []

    def _plan(self, group: str) -> dict[str, Any]:
        return dict(json.loads((self.path / group / "plan.json").read_text()))

    def blocks(self) -> Iterator[BlockRef]:
        for group in self.groups():
            for index in range(len(self._plan(group)["blocks"])):
                yield BlockRef(group, index)

    def total(self) -> int:
        return int((self.path / "ready").read_text()) if self.ready() else 0

    def _result(self, ref: BlockRef) -> Path:
        return self.path / ref.group / "pairs" / f"{ref.index}.npz"

    def _claim_file(self, ref: BlockRef) -> Path:
        return self.path / ref.group / "claims" / str(ref.index)

    def is_done(self, ref: BlockRef) -> bool:
        return self._result(ref).exists()

    def done_count(self) -> int:
        return sum(len(list((self.path / g / "pairs").glob("*.npz"))) for g in self.groups())

    def claim(self, ref: BlockRef) -> bool:
        """True when this caller may compute ``ref``: not done, and not claimed by a live
        worker (a claim older than ``stale_s`` is taken over)."""
        if self.is_done(ref):
            return False
        path = self._claim_file(ref)
        try:
            os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            return True
        except FileExistsError:
            try:
                age = time.time() - path.stat().st_mtime
            except FileNotFoundError:
                return False
            if age < self.stale_s:
                return False
            os.utime(path)  # taken over: the next one to look sees a fresh claim
            return True
        except FileNotFoundError:  # the scan was cleaned up under us
            return False

    def next_claim(self) -> BlockRef | None:
        for ref in self.blocks():
            if self.claim(ref):
                return ref
        return None

    def pending(self) -> list[BlockRef]:
        return [ref for ref in self.blocks() if not self.is_done(ref)]

    def compute(self, ref: BlockRef) -> int:
        """Compute block ``ref`` and write its pairs (atomically); the number of pairs."""
        folder = self.path / ref.group
        plan = self._plan(ref.group)
        start, stop = plan["blocks"][ref.index]
        threshold = float(plan["threshold"])
        if plan["kind"] == "changed_base":
            i, j, s = changed_pairs_on_base(
                np.load(folder / "base.npy", mmap_mode="r"),
                np.load(folder / "live.npy"),
                np.load(folder / "fresh.npy"),
                np.load(folder / "changed.npy"),
                start,
                stop,
                threshold,
            )
        else:
            matrix = np.load(folder / "vectors.npy", mmap_mode="r")
            if plan["kind"] == "exact":
                i, j, s = exact_block_pairs(matrix, start, stop, threshold)
            elif plan["kind"] == "changed":
                changed = np.load(folder / "changed.npy")
                i, j, s = changed_block_pairs(matrix, changed, start, stop, threshold)
            else:
                cells = Cells(
                    assign=np.load(folder / "assign.npy", mmap_mode="r"),
                    members=np.load(folder / "members.npy", mmap_mode="r"),
                    offsets=np.load(folder / "offsets.npy"),
                )
                i, j, s = cell_block_pairs(matrix, cells, start, stop, threshold)
        result = self._result(ref)
        temporary = result.with_name(f"{ref.index}.{os.getpid()}.tmp")
        with temporary.open("wb") as out:
            np.savez(out, i=i, j=j, s=s)
        os.replace(temporary, result)
        return len(i)

    # --- the merge (the coordinator) -----------------------------------------------------

    def pairs(self) -> list[tuple[str, str, float]]:
        """Every block's pairs as ``(note_a, note_b, similarity)``, most similar first."""
        rows: list[tuple[str, str, float]] = []
        for group in self.groups():
            ids = self._ids(group)
            parts: list[Pairs] = []
            for path in sorted((self.path / group / "pairs").glob("*.npz")):
                with np.load(path) as data:
                    parts.append((data["i"], data["j"], data["s"]))
            i, j, s = join_pairs(parts)
            rows.extend(
                zip(ids[i].tolist(), ids[j].tolist(), s.astype(float).tolist(), strict=True)
            )
        rows.sort(key=lambda row: -row[2])
        return rows

    def _ids(self, group: str) -> np.ndarray:
        folder = self.path / group
        if (folder / "fresh_ids.npy").exists():  # the base's rows, then the fresh ones
            return np.concatenate(
                [np.load(folder / "base_ids.npy"), np.load(folder / "fresh_ids.npy")]
            )
        return np.load(folder / "ids.npy")

    def remove(self) -> None:
        """Take the scan away at once, even while block tasks still write into it: the
        folder is renamed first (one atomic step: every later claim, result or plan read
        by its path finds nothing, and a block task stops), then deleted. Deleting it in
        place raced them: a result written between the listing and the removal of its
        folder left the scan's folder behind. What a late writer still put in the renamed
        folder is deleted by the next ``remove`` under the same root."""
        trash = self.path.with_name(
            f"{TRASH_PREFIX}{self.path.name}.{os.getpid()}.{time.time_ns()}"
        )
        try:
            os.rename(self.path, trash)
        except (FileNotFoundError, NotADirectoryError):  # nothing to remove
            pass
        except OSError:  # not renamed (another file system, permissions): delete in place
            shutil.rmtree(self.path, ignore_errors=True)
        for leftover in self.path.parent.glob(f"{TRASH_PREFIX}*"):
            shutil.rmtree(leftover, ignore_errors=True)
