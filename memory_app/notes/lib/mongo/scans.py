"""Whole-collection walks the notes jobs make (decay, archival, re-embed, dedup),
and their compare-and-set writes. Each walk reads only the fields it needs."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
from bson.codec_options import CodecOptions
from bson.raw_bson import RawBSONDocument
from pymongo import UpdateOne

from memory_app.notes.lib.documents import effective_importance
from memory_app.notes.lib.grace import KEEP_UNTIL_FIELD, kept_from_archival
from memory_app.notes.lib.importance import (
    BASE_FIELD,
    DECAYED_FIELD,
    DecayWrite,
    agent_decay_comparison,
    decay_write_plan,
)
from memory_app.notes.lib.mongo.base import WRITTEN_AT_FIELD, MongoBase
from memory_app.notes.lib.mongo.raw_vectors import note_row
from memory_app.notes.lib.replica.id_windows import WindowPlanner
from memory_app.notes.lib.replica.state import Columns

VECTOR_BATCH = 500  # vectors one query of the full dedup scan asks for at most

DECAY_FIELDS = {
    "_id": 0,
    "note_id": 1,
    "importance": 1,
    "access_count": 1,
    "created_at": 1,
    "last_accessed": 1,
    "decay_rate": 1,
    "updated_at": 1,
    BASE_FIELD: 1,
    DECAYED_FIELD: 1,
}
DecayBatch = list[tuple[dict[str, Any], DecayWrite]]


@dataclass
class DecayReport:
    scanned: int = 0
    changed: int = 0  # notes whose importance the pass would change
    written: int = 0  # of those, written (a note the agent changed meanwhile is skipped)
    sample: list[tuple[str, float, float]] = field(default_factory=list)
    # notes the agent's own decay command would write another value for (0.01 for every
    # note, compounding), and of those, how many because of their stored decay_rate and
    # how many because their importance is already decayed (the two can overlap)
    agent_differs: int = 0
    agent_differs_rate: int = 0
    agent_differs_compounding: int = 0

    def compare_with_agent(self, doc: dict[str, Any], plan: DecayWrite, now: datetime) -> None:
        found = agent_decay_comparison(doc, plan, now)
        if found.differs:
            self.agent_differs += 1
            self.agent_differs_rate += found.by_rate
            self.agent_differs_compounding += found.by_compounding


@dataclass(frozen=True)
class EmbeddingWrite:
    """A new vector for a note, written only while the note is as it was read."""

    note_id: str
    expected_updated_at: datetime | None
    embedding: list[float]
    updated_at: datetime


class DecayScans(MongoBase):
    # --- decay that does not compound ---------------------------------------------------

    def decay_batches(
        self,
        now: datetime,
        batch_size: int = 1000,
        observe: Callable[[dict[str, Any], DecayWrite], None] | None = None,
    ) -> Iterator[tuple[int, DecayBatch]]:
        """Walk every note once; yield ``(notes scanned so far, [(doc, plan), ...])`` for
        the notes whose importance a decay pass would change, ``batch_size`` at a time.
        ``observe(doc, plan)`` sees every note, changed or not."""
        batch: DecayBatch = []
        scanned = 0
        with self._guard():
            for doc in self.collection.find({}, DECAY_FIELDS).batch_size(batch_size):
                scanned += 1
                plan = decay_write_plan(doc, now)
                if observe is not None:
                    observe(doc, plan)
                if plan.changes:
                    batch.append((doc, plan))
                if len(batch) >= batch_size:
                    yield scanned, batch
                    batch = []
        yield scanned, batch

    def decay_walk(
        self,
        now: datetime,
        *,
        dry_run: bool,
        batch_size: int = 1000,
        write: Callable[[DecayBatch, Callable[[], int]], int] | None = None,
        progress: Callable[[int], None] | None = None,
        on_batch: Callable[[DecayBatch], None] | None = None,
    ) -> DecayReport:
        """The one decay pass (the seed's ``decay_pass`` and the audited job both run it):
        each batch of changed notes is written by ``write(batch, apply)`` (the job wraps
        ``apply`` in an audit event) or, without one, applied as it is. The report also
        counts the notes the agent's own decay command would treat differently.
        ``on_batch`` sees every batch of changed notes, dry run or not (a dry run's plan)."""
        report = DecayReport()

        def observe(doc: dict[str, Any], plan: DecayWrite) -> None:
            report.compare_with_agent(doc, plan, now)

        for scanned, batch in self.decay_batches(now, batch_size, observe):
            report.scanned = scanned
            report.changed += len(batch)
            if on_batch is not None and batch:
                on_batch(batch)
            report.sample.extend(
                (p.note_id, p.expected_importance, p.new_importance)
                for _, p in batch[: max(0, 10 - len(report.sample))]
            )
            if batch and not dry_run:

                def apply(batch: DecayBatch = batch) -> int:
                    return self.apply_decay([plan for _, plan in batch], now)

                report.written += write(batch, apply) if write is not None else apply()
            if progress is not None:
                progress(scanned)
        return report

    def apply_decay(self, plans: list[DecayWrite], now: datetime) -> int:
        """Write planned values, each a compare-and-set on the importance that was read
        (a value the agent wrote meanwhile wins). Returns how many were written."""
        if not plans:
            return 0
        ops = [
            UpdateOne(
                {"note_id": plan.note_id, "importance": plan.expected_importance},
                {
                    "$set": {
                        "importance": plan.new_importance,
                        BASE_FIELD: plan.base,
                        DECAYED_FIELD: plan.new_importance,
                        "updated_at": now,
                    }
                },
            )
            for plan in plans
        ]
        with self._guard():
            return int(self.collection.bulk_write(ops, ordered=False).modified_count)

    def restore_decayed(self, before: dict[str, dict[str, Any]], written: dict[str, float]) -> int:
        """Undo of a decay batch: put back each note's values from ``before`` where its
        importance is still the one the pass wrote (``written``); our base fields go away
        where they were absent before."""
        ops = [
            UpdateOne(
                {"note_id": note_id, "importance": written[note_id]},
                {
                    "$set": {
                        "importance": values["importance"],
                        "updated_at": values["updated_at"],
                        BASE_FIELD: values[BASE_FIELD],
                        DECAYED_FIELD: values[DECAYED_FIELD],
                    }
                },
            )
            for note_id, values in before.items()
            if note_id in written
        ]
        with self._guard():
            restored = self.collection.bulk_write(ops, ordered=False).modified_count if ops else 0
            self.collection.update_many(
                {"note_id": {"$in": list(before)}, BASE_FIELD: None},
                {"$unset": {BASE_FIELD: "", DECAYED_FIELD: ""}},
            )
        return int(restored)

    # --- archival ------------------------------------------------------------------------

    def archival_candidates(self, threshold: float, now: datetime) -> list[tuple[str, float]]:
        """``(note_id, effective importance)`` of every note below ``threshold`` now, in
        collection order (the archival job and the seed's ``archive_low_importance``).
        A note in its grace period (``qqweb_keep_until`` after ``now``: restored, or
        brought back by an undo) is never a candidate (:mod:`memory_app.notes.lib.grace`)."""
        found: list[tuple[str, float]] = []
        fields = {**DECAY_FIELDS, KEEP_UNTIL_FIELD: 1}
        with self._guard():
            for doc in self.collection.find({}, fields).batch_size(2000):
                if kept_from_archival(doc, now):
                    continue
                value = effective_importance(doc, now)
                if value < threshold:
                    found.append((str(doc["note_id"]), value))
        return found

    # --- embeddings ----------------------------------------------------------------------

    def notes_to_embed(self, dimension: int, *, every_note: bool) -> list[dict[str, Any]]:
        """``note_id``, ``content``, ``embedding``, ``updated_at`` of the notes with no
        embedding or one of another length than ``dimension`` (or of every note)."""
        query: dict[str, Any] = (
            {}
            if every_note
            else {
                "$or": [
                    {"embedding": {"$size": 0}},
                    {"embedding": None},
                    {"embedding": {"$exists": False}},
                    {f"embedding.{dimension - 1}": {"$exists": False}},
                    {f"embedding.{dimension}": {"$exists": True}},
                ]
            }
        )
        fields = {"_id": 0, "note_id": 1, "content": 1, "embedding": 1, "updated_at": 1}
        with self._guard():
            return list(self.collection.find(query, fields))

    def write_embeddings(self, writes: list[EmbeddingWrite]) -> int:
        """Each vector set only while the note's ``updated_at`` is the expected one (a
        note changed since is left alone). Returns how many were written."""
        ops = [
            UpdateOne(
                {"note_id": w.note_id, "updated_at": w.expected_updated_at},
                {
                    "$set": {
                        "embedding": [float(x) for x in w.embedding],
                        "updated_at": w.updated_at,
                    }
                },
            )
            for w in writes
        ]
        if not ops:
            return 0
        with self._guard():
            written = int(self.collection.bulk_write(ops, ordered=False).modified_count)
        self._notify(w.note_id for w in writes)
        return written

    def vectors_by_dimension(
        self, section: str | None = None, *, batch: int = VECTOR_BATCH
    ) -> dict[int, tuple[list[str], np.ndarray]]:
        """Every non-empty embedding as float32 rows, grouped by length: ``{dim: (ids,
        matrix)}``. Vectors of different lengths are never put side by side. Read in
        windows of note ids of at most ``batch`` notes a query (``replica/id_windows.py``,
        as the vector index's first load reads them): one find of every vector made the
        Rust server grow by 4 GB in 10 s at 100k notes, and SecantusDB's daemon holds a
        find's whole result before its first batch. With ``section`` the windows are
        sized by that section's notes (the daemon still decodes every note of a window)."""
        groups: dict[int, Columns] = {}  # float32 chunks, no Python list per vector
        with self._guard():
            total = int(self.collection.estimated_document_count())
        planner = WindowPlanner(total, batch)
        for window in planner.windows():
            edges = {
                op: edge
                for op, edge in (
                    ("$gt" if window.after else "$gte", window.low),
                    ("$lt", window.high),
                )
                if edge is not None
            }
            query: dict[str, Any] = {"note_id": edges}
            if section:
                query["section"] = section
            planner.read(self._raw_vectors_into(groups, query, sort=True, limit=planner.batch))
        return {dim: (cols.ids, cols.matrix()) for dim, cols in groups.items()}

    def vectors_of(
        self, note_ids: Iterable[str], chunk: int = 50
    ) -> dict[int, tuple[list[str], np.ndarray]]:
        """The embeddings of ``note_ids`` that exist and have one, as
        ``vectors_by_dimension`` gives them (``$in`` queries of ``chunk`` ids: SecantusDB's
        Python daemon answers long ``$in`` lists slowly; 1,000 ids at 60k notes took 3.0 s
        in one query, 1.3 s in chunks of 100, 0.8 s in chunks of 50, load 8)."""
        wanted = sorted({str(i) for i in note_ids})
        groups: dict[int, Columns] = {}
        for start in range(0, len(wanted), chunk):
            part = wanted[start : start + chunk]
            self._raw_vectors_into(groups, {"note_id": {"$in": part}})
        return {dim: (cols.ids, cols.matrix()) for dim, cols in groups.items()}

    def _raw_vectors_into(
        self,
        groups: dict[int, Columns],
        query: dict[str, Any],
        *,
        sort: bool = False,
        limit: int = 0,
    ) -> list[str]:
        """The vectors ``query`` matches into ``groups``; the note ids read, in order
        (with ``sort``: ``note_id`` order, at most ``limit``)."""
        fields = {"_id": 0, "note_id": 1, "embedding": 1}
        raw = self.collection.with_options(
            codec_options=CodecOptions(document_class=RawBSONDocument)
        )
        read: list[str] = []
        with self._guard():
            cursor = raw.find(query, fields, limit=max(0, limit))
            if sort:
                cursor = cursor.sort([("note_id", 1)])
            for doc in cursor.batch_size(2000):
                note_id, row = note_row(doc.raw)  # float32 from the BSON bytes: no floats
                if note_id is None:
                    continue
                read.append(note_id)
                if row is not None:
                    cols = groups.setdefault(len(row), Columns(len(row)))
                    cols.append(note_id, "", row)
        return read

    def note_ids_changed_since(self, since: datetime) -> set[str]:
        """The notes whose text or embedding may have changed since ``since`` (naive UTC):
        ``updated_at`` at or after it (the agent rewrites it on every upsert, qqweb on
        every write), none (older data), or put back by qqweb since (an undo's exact
        reinsert keeps the old ``updated_at``; ``qqweb_written_at`` says when). Both
        dates are indexed (``updated_at`` by the agent, ours sparse): three queries, each
        one index range (one ``$or`` of the three was a 9 s scan at 100k on the daemon)."""
        queries = [
            {"updated_at": {"$gte": since}},
            {"updated_at": None},
            {WRITTEN_AT_FIELD: {"$gte": since}},
        ]
        found: set[str] = set()
        with self._guard():
            for query in queries:
                cursor = self.collection.find(query, {"_id": 0, "note_id": 1}).batch_size(5000)
                found.update(str(doc["note_id"]) for doc in cursor)
        return found

    # --- the Overview's walk -------------------------------------------------------------

    def insight_rows(self) -> Iterator[dict[str, Any]]:
        """Every note's dates, importance, decay fields and source kind/file (no text, no
        embedding), for the Overview's pictures."""
        fields = {
            **DECAY_FIELDS,
            "source.source_type": 1,
            "source.file_path": 1,
        }
        with self._guard():
            yield from self.collection.find({}, fields).batch_size(5000)
