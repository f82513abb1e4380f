"""Reads the dashboard makes: the list, aggregates, notes by id or by name, and what
the vector index is fed with (rows, id versions, change events, its generation)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from datetime import datetime
from itertools import chain, pairwise
from typing import Any

from bson.raw_bson import RawBSONDocument

from memory_app.notes.lib.documents import utcnow_naive
from memory_app.notes.lib.domain import Note
from memory_app.notes.lib.listing import (
    LIST_FIELDS,
    NoteFilter,
    NotesCount,
    NotesPage,
    build_query,
)
from memory_app.notes.lib.mongo.base import MongoBase
from memory_app.notes.lib.mongo.paging import page_notes
from memory_app.notes.lib.mongo.raw_vectors import document_with_row
from memory_app.notes.lib.replica.read_model import STAMP_FIELDS, stamp

META_COLLECTION = "qqweb_meta"  # ours, beside the notes; the agent never reads it
# What the vector index and the read model hold of a note (replica/read_model.py).
VECTOR_FIELDS = {
    "_id": 1,
    "note_id": 1,
    "section": 1,
    "content": 1,
    "embedding": 1,
    "created_at": 1,
    "source.source_type": 1,
    "source.file_path": 1,
    **dict.fromkeys(STAMP_FIELDS, 1),
}


# How many of the newest notes "notes that name an entity" looks through.
MENTION_WINDOW = 5000
RESULT_FIELDS = {"_id": 0, "note_id": 1, "content": 1, "section": 1, "importance": 1}


class Reads(MongoBase):
    # --- the dashboard's list -------------------------------------------------------------

    def list_notes(
        self,
        flt: NoteFilter | None = None,
        *,
        sort: str = "updated",
        direction: str = "desc",
        cursor: str | None = None,
        limit: int = 50,
        now: datetime | None = None,
        max_scan: int = 5000,
    ) -> NotesPage:
        """One page in ``(sort field, note_id)`` order after ``cursor``. Filters on the
        effective (decayed) importance are applied while reading, scanning at most
        ``max_scan`` documents; the cursor then marks where the scan stopped."""
        with self._guard():
            return page_notes(
                self.collection,
                flt or NoteFilter(),
                sort=sort,
                direction=direction,
                cursor=cursor,
                limit=limit,
                now=now or utcnow_naive(),
                max_scan=max_scan,
            )

    def count_notes(
        self, flt: NoteFilter | None = None, *, cap: int = 100_000, now: datetime | None = None
    ) -> NotesCount:
        """How many notes ``flt`` matches, for "41-60 of 1,234" on the list. Its cost:

        - no filter: ``estimated_document_count``, the collection's metadata, no scan
          (``estimated=True``);
        - a filter the database evaluates: ``count_documents`` with ``limit=cap + 1``: an
          index range on an indexed field (section, importance, source type and file,
          last read), else a scan that stops after ``cap + 1`` matches; more than ``cap``
          is reported as ``capped`` (a lower bound). A filter matching few notes among
          many without an index (text, no embedding, stale) still reads the collection;
        - a filter on effective importance: not counted (``value=None``), since it is
          only known by decaying every note."""
        flt = flt or NoteFilter()
        if flt.needs_decay:
            return NotesCount(None)
        query = build_query(flt, now or utcnow_naive())
        with self._guard():
            if not query:
                return NotesCount(int(self.collection.estimated_document_count()), estimated=True)
            found = int(self.collection.count_documents(query, limit=cap + 1))
        return NotesCount(min(found, cap), capped=found > cap)

    def importance_histogram(self, bins: int = 10, section: str | None = None) -> list[int]:
        """Counts of stored importance in ``bins`` equal buckets over [0, 1], counted by
        the database (``$bucket``)."""
        bins = max(1, min(int(bins), 100))
        bounds = [round(i / bins, 6) for i in range(bins)] + [1.000001]
        pipeline: list[dict[str, Any]] = []
        if section:
            pipeline.append({"$match": {"section": section}})
        pipeline.append(
            {
                "$bucket": {
                    "groupBy": "$importance",
                    "boundaries": bounds,
                    "default": "other",
                    "output": {"n": {"$sum": 1}},
                }
            }
        )
        counts = [0] * bins
        with self._guard():
            for row in self.collection.aggregate(pipeline):
                if row["_id"] != "other":
                    counts[bounds.index(row["_id"])] = int(row["n"])
        return counts

    def stored_dimensions(self) -> dict[int, int]:
        """How many notes have an embedding of each length (0 = empty or missing)."""
        pipeline = [
            {"$group": {"_id": {"$size": {"$ifNull": ["$embedding", []]}}, "n": {"$sum": 1}}}
        ]
        with self._guard():
            return {int(r["_id"]): int(r["n"]) for r in self.collection.aggregate(pipeline)}

    def dominant_dimension(self) -> int | None:
        """The dimension most stored vectors have (ties: the larger), None when no note
        has a vector."""
        dims = {d: n for d, n in self.stored_dimensions().items() if d}
        return max(dims, key=lambda d: (dims[d], d)) if dims else None

    def reembed_dimension(self, note: Note | None) -> int | None:
        """The dimension a new vector of ``note`` must keep: its stored vector's, or the
        collection's dominant one when it has none (None: any, nothing is stored)."""
        if note is not None and note.embedding:
            return len(note.embedding)
        return self.dominant_dimension()

    def collection_stats(self) -> dict[str, Any]:
        dims = self.stored_dimensions()
        return {
            "total": sum(dims.values()),
            "by_section": self.count_by_section(),
            "dimensions": {d: n for d, n in dims.items() if d},
            "without_embedding": dims.get(0, 0),
        }

    # --- counts ---------------------------------------------------------------------------

    def count_by_section(self) -> dict[str | None, int]:
        """Notes per section (``None`` for notes with no section), grouped in the database."""
        pipeline = [{"$group": {"_id": "$section", "n": {"$sum": 1}}}]
        with self._guard():
            return {row["_id"]: int(row["n"]) for row in self.collection.aggregate(pipeline)}

    # --- notes by id, by name, by rule -----------------------------------------------------

    def notes_by_ids(
        self, note_ids: Iterable[str], *, with_embedding: bool = False
    ) -> dict[str, Note]:
        """The notes of ``note_ids`` that exist, by id (one ``$in`` query); without their
        embedding (``embedding_dimension`` None) unless ``with_embedding``."""
        wanted = list(dict.fromkeys(str(i) for i in note_ids))
        if not wanted:
            return {}
        fields: dict[str, Any] = {"_id": 0} if with_embedding else LIST_FIELDS
        with self._guard():
            return {
                str(d["note_id"]): Note.from_document(d)
                for d in self.collection.find({"note_id": {"$in": wanted}}, fields)
            }

    def notes_mentioning(
        self, names: Iterable[str], limit: int = 20, *, recent: int = MENTION_WINDOW
    ) -> list[dict[str, Any]]:
        """Notes whose content names any of ``names`` (3 characters or more), by an
        escaped, case-insensitive regex (a name is text, never an operator), among the
        ``recent`` most recently updated notes, newest first: the ``updated_at`` index
        walked for their ids, then the regex on those ids only. A regex over the whole
        collection reads every note when few name the entity (seconds at 100k)."""
        wanted = [n for n in names if len(n) >= 3]
        if not wanted:
            return []
        pattern = "|".join(re.escape(n) for n in wanted)
        with self._guard():
            ids = [
                d["note_id"]
                for d in self.collection.find({}, {"_id": 0, "note_id": 1})
                .sort([("updated_at", -1)])
                .limit(max(1, int(recent)))
            ]
            return list(
                self.collection.find(
                    {"note_id": {"$in": ids}, "content": {"$regex": pattern, "$options": "i"}},
                    RESULT_FIELDS,
                )
                .sort([("updated_at", -1)])
                .limit(max(1, int(limit)))
            )

    # --- what the vector index is fed with ---------------------------------------------------

    def vector_rows(
        self,
        *,
        note_ids: Iterable[str] | None = None,
        object_ids: Iterable[Any] | None = None,
        window: tuple[str | None, str | None] | None = None,
        after: bool = False,
        limit: int = 0,
    ) -> Iterator[dict[str, Any]]:
        """``_id``, ``note_id``, ``section``, ``embedding``, ``updated_at`` of every note,
        of the given ones, or of those whose ``note_id`` is in ``window`` (from its low
        edge, included, or excluded with ``after``, to its high one, excluded; None:
        open) in ``note_id`` order (a range of the ``note_id`` index, sorted by it), one
        query (at most ``limit`` of them; 0: no limit). Every note at once costs
        SecantusDB's daemon its whole result in memory before the first batch (past 10
        GB at 100k notes of 384 floats), and a limit does not stop it reading the whole
        range first: the vector index reads in windows (``follow.every_vector``).

        An embedding of doubles comes as a float32 row, read from the document's bytes
        (``raw_vectors.document_with_row``), any other as pymongo decodes it."""
        query: dict[str, Any] = {}
        if note_ids is not None:
            query["note_id"] = {"$in": list(note_ids)}
        if object_ids is not None:
            query["_id"] = {"$in": list(object_ids)}
        if window is not None and (edges := _note_id_range(*window, after=after)):
            query["note_id"] = edges
        collection = self.collection
        options = collection.codec_options
        raw = collection.with_options(
            codec_options=options.with_options(document_class=RawBSONDocument)
        )
        # A window (the load) asks for whole documents: SecantusDB's daemon deep-copies
        # every projected value, and a window of 2,000 notes took it 0.43 s projected
        # against 0.20 s whole; what else an agent's note holds (its metadata) is small.
        fields = None if window is not None else VECTOR_FIELDS
        with self._guard():
            cursor = raw.find(query, fields, limit=max(0, limit))
            if window is not None:
                cursor = cursor.sort([("note_id", 1)])
            for doc in cursor.batch_size(2000):
                yield document_with_row(doc.raw, options)

    def id_versions(self, bounds: Iterable[str] = ()) -> Iterator[tuple[Any, str, tuple[Any, ...]]]:
        """``(_id, note_id, stamp)`` of every note (the vector index's catch-up, and its
        diff when the server has no change stream; ``stamp`` as :func:`stamp`), read in
        windows of ``note_id`` between consecutive ``bounds`` (sorted; the first window
        is open below, the last above), one query each. Each window is a range of the
        ``note_id`` index, so the server reads only its notes and answers other queries
        between windows: SecantusDB's daemon reads the whole result of a find before its
        first batch and answers nothing else meanwhile (13.5 s for every note at 100k,
        during which a page's fetch of 10 notes by id waited 12.3 s)."""
        fields = {"_id": 1, "note_id": 1, **dict.fromkeys(STAMP_FIELDS, 1)}
        edges: Iterable[str | None] = chain([None], bounds, [None])
        for low, high in pairwise(edges):
            window = _note_id_range(low, high)
            with self._guard():
                query = {"note_id": window} if window else {}
                for d in self.collection.find(query, fields).batch_size(5000):
                    yield d["_id"], str(d.get("note_id")), stamp(d)

    def watch_changes(self, resume_after: Any = None) -> Any:
        """A change stream on the notes (raises StoreError where the server has none);
        each event names the document's ``_id``."""
        with self._guard():
            return self.collection.watch(
                [{"$project": {"documentKey": 1, "operationType": 1}}],
                resume_after=resume_after,
                max_await_time_ms=500,
            )

    def _meta_key(self, what: str) -> str:
        return f"{what}:{self._collection_name}"

    def index_generation(self) -> int:
        with self._guard():
            doc = self.client[self._database_name][META_COLLECTION].find_one(
                {"_id": self._meta_key("vector_index")}
            )
        return int(doc.get("generation", 0)) if doc else 0

    def bump_index_generation(self) -> None:
        with self._guard():
            self.client[self._database_name][META_COLLECTION].update_one(
                {"_id": self._meta_key("vector_index")}, {"$inc": {"generation": 1}}, upsert=True
            )

    def atlas_vector_search(
        self, index: str, query: list[float], limit: int, section: str | None
    ) -> list[dict[str, Any]]:
        """``$vectorSearch`` (Atlas, MongoDB 8.2+ with mongot). A server without it raises
        StoreError; the caller falls back to the in-process index."""
        stage: dict[str, Any] = {
            "index": index,
            "path": "embedding",
            "queryVector": [float(x) for x in query],
            "numCandidates": max(100, limit * 20),
            "limit": limit,
        }
        if section:
            stage["filter"] = {"section": section}
        pipeline = [
            {"$vectorSearch": stage},
            {"$project": {**RESULT_FIELDS, "score": {"$meta": "vectorSearchScore"}}},
        ]
        with self._guard():
            return list(self.collection.aggregate(pipeline))


def _note_id_range(low: str | None, high: str | None, *, after: bool = False) -> dict[str, str]:
    """``{"$gte": low, "$lt": high}`` (``$gt`` with ``after``) without the open edges
    (both open: empty)."""
    above = "$gt" if after else "$gte"
    return {op: str(edge) for op, edge in ((above, low), ("$lt", high)) if edge is not None}
