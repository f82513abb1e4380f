"""The facts store: the only code that speaks pymongo to the facts agent's collection.

The client is injected and nothing is read in ``__init__``. Driver errors leave classified
by the kernel's :func:`~qqweb.lib.mongo.guard.classify`, as the notes store's (an outage is
``StoreUnavailable``, anything else ``StoreError``). Before any write or index command the
collection's layout is sampled (``qqweb/lib/mongo/layouts.py``): anything but the facts layout or
an empty collection is refused with :class:`~qqweb.lib.mongo.layouts.WrongLayout`.

What is not here, on purpose (``facts-data-contract.md`` 4.4): no upsert, no replace, no
text or unique index, no drop or rename, no ``$text``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from bson import ObjectId
from bson.errors import InvalidId
from pymongo import DESCENDING, MongoClient
from pymongo.collection import Collection
from pymongo.errors import BulkWriteError, DuplicateKeyError, PyMongoError

from memory_app.facts.lib.constants import DEFAULT_COLLECTION, FACT_TYPE
from memory_app.facts.lib.domain import Fact, StoredDocument, document_from_bson
from memory_app.facts.lib.domain import check_agent_document as check_agent_document  # its old home
from memory_app.facts.lib.domain import check_vector as check_vector
from memory_app.facts.lib.errors import InvalidFact
from qqweb.lib.errors import Conflict, NotFound
from qqweb.lib.mongo.guard import classify, guarded, only_duplicates
from qqweb.lib.mongo.layouts import Layout, LayoutVerdict, WrongLayout, sample_layout

PAGE_SORT = [("timestamp", DESCENDING), ("_id", DESCENDING)]


class FactNotFound(NotFound):
    def __init__(self, fact_id: str) -> None:
        super().__init__(f"fact {fact_id!r} does not exist")
        self.fact_id = fact_id

    def details(self) -> dict[str, object]:
        return {"fact_id": self.fact_id}


class FactIdTaken(Conflict):
    """An insert under an ``_id`` that a document already has (409)."""

    def __init__(self, fact_id: str) -> None:
        super().__init__(f"a document with _id {fact_id!r} exists already")
        self.fact_id = fact_id

    def details(self) -> dict[str, object]:
        return {"fact_id": self.fact_id}


@dataclass(frozen=True)
class FactQuery:
    """What the list shows: ``text`` (a case-insensitive substring of the content),
    ``ids`` (only these, e.g. the facts whose embedding is invalid), ``legacy`` (only
    legacy turns and facts without an embedding)."""

    text: str = ""
    ids: tuple[Any, ...] | None = None
    legacy: bool = False

    def to_filter(self) -> dict[str, Any]:
        clauses: list[dict[str, Any]] = []
        if self.text:
            clauses.append({"content": {"$regex": re.escape(self.text), "$options": "i"}})
        if self.ids is not None:
            clauses.append({"_id": {"$in": list(self.ids)}})
        if self.legacy:
            clauses.append(
                {
                    "$or": [
                        {"type": {"$exists": False}},
                        {"type": FACT_TYPE, "content_embedding": {"$exists": False}},
                    ]
                }
            )
        return {"$and": clauses} if clauses else {}


@dataclass(frozen=True)
class FactsPage:
    items: list[StoredDocument]
    next_cursor: str | None


def parse_fact_id(fact_id: str) -> Any:
    """A 24-hex id as the ObjectId the agent writes; any other string as itself (the lint
    shows documents with non-ObjectId ids, and they must open too)."""
    try:
        return ObjectId(fact_id)
    except (InvalidId, TypeError):
        return fact_id


_EPOCH = datetime(1970, 1, 1)
_MS = timedelta(milliseconds=1)


def _encode_cursor(doc: StoredDocument) -> str:
    if isinstance(doc.timestamp, datetime) and doc.id_is_objectid:
        return f"d.{(doc.timestamp.replace(tzinfo=None) - _EPOCH) // _MS}.{doc.hex_id}"
    return f"x.{doc.hex_id}"


def _cursor_filter(cursor: str) -> tuple[dict[str, Any], bool]:
    """The filter of the page after ``cursor``, and whether it is in the dated part."""
    try:
        kind, *rest = cursor.split(".")
        if kind == "d":
            when = _EPOCH + int(rest[0]) * _MS
            oid = ObjectId(rest[1])
            return (
                {"$or": [{"timestamp": {"$lt": when}}, {"timestamp": when, "_id": {"$lt": oid}}]},
                True,
            )
        if kind == "x":
            return {"_id": {"$lt": ObjectId(rest[0])}}, False
    except (ValueError, IndexError, InvalidId, OverflowError):  # Overflow: no such date
        pass
    raise InvalidFact("cursor", "not a cursor this list gave")


_NOT_A_DATE = {"timestamp": {"$not": {"$type": "date"}}}


class FactsStore:
    def __init__(
        self,
        client: MongoClient[dict[str, Any]],
        database: str,
        collection: str = DEFAULT_COLLECTION,
        *,
        text_index_supported: bool = True,
    ) -> None:
        self._client = client
        self._database_name = database
        self._collection_name = collection
        self.text_index_supported = text_index_supported
        self._layout_ok = False

    # --- plumbing ------------------------------------------------------------------------

    @property
    def collection(self) -> Collection[dict[str, Any]]:
        """The raw collection: the store's own methods; tests that plant exactly what the
        agent (or a careless tool) writes."""
        return self._client[self._database_name][self._collection_name]

    @property
    def location(self) -> tuple[str, str]:
        return self._database_name, self._collection_name

    @contextmanager
    def _guard(self) -> Iterator[None]:
        with guarded(self._client):
            yield

    def ping(self) -> float:
        started = time.perf_counter()
        with self._guard():
            self._client[self._database_name].command("ping")
        return (time.perf_counter() - started) * 1000

    def layout(self) -> LayoutVerdict:
        with self._guard():
            return sample_layout(self.collection)

    def _require_facts_layout(self) -> None:
        """Refuse writes and index commands unless the collection holds facts (or
        nothing). Remembered by this store once it saw facts."""
        if self._layout_ok:
            return
        verdict = self.layout()
        if verdict.layout is Layout.FACTS:
            self._layout_ok = True
        elif verdict.layout is not Layout.EMPTY:
            raise WrongLayout(Layout.FACTS, ".".join(self.location), verdict)

    # --- reads ---------------------------------------------------------------------------

    def documents(self) -> list[StoredDocument]:
        """Every document, typed, in natural (read) order: what the agent's passes read,
        and more. Stores are small (the agent scans them all at every turn)."""
        with self._guard():
            return [document_from_bson(d) for d in self.collection.find({})]

    def facts(self) -> list[Fact]:
        return [d for d in self.documents() if isinstance(d, Fact)]

    def get(self, fact_id: str) -> StoredDocument:
        with self._guard():
            doc = self.collection.find_one({"_id": parse_fact_id(fact_id)})
        if doc is None:
            raise FactNotFound(fact_id)
        return document_from_bson(doc)

    def count(self) -> int:
        with self._guard():
            return int(self.collection.estimated_document_count())

    def count_matching(self, query: FactQuery, *, cap: int = 100_000) -> int:
        """How many documents ``query`` matches, for "4 of 220 documents" on a filtered
        list: ``count_documents`` with ``limit=cap + 1`` (it stops after ``cap + 1``
        matches; more than ``cap`` comes back as ``cap + 1``, a lower bound)."""
        with self._guard():
            return int(self.collection.count_documents(query.to_filter(), limit=cap + 1))

    def indexes(self) -> list[dict[str, Any]]:
        with self._guard():
            return [dict(i) for i in self.collection.list_indexes()]

    def page(
        self, query: FactQuery | None = None, *, cursor: str | None = None, limit: int = 50
    ) -> FactsPage:
        """Newest first on ``(timestamp, _id)``, keyset-paged: the dated documents first,
        then (BSON order puts them last, descending) those whose ``timestamp`` is not a
        date, by ``_id``."""
        base = (query or FactQuery()).to_filter()
        dated = True
        after: dict[str, Any] = {}
        if cursor:
            after, dated = _cursor_filter(cursor)
        items: list[dict[str, Any]] = []
        with self._guard():
            if dated:
                filt = {"$and": [f for f in (base, after, {"timestamp": {"$type": "date"}}) if f]}
                items = list(self.collection.find(filt, sort=PAGE_SORT, limit=limit + 1))
                after = {}
            if len(items) <= limit:
                filt = {"$and": [f for f in (base, after, _NOT_A_DATE) if f]}
                items += list(
                    self.collection.find(
                        filt, sort=[("_id", DESCENDING)], limit=limit + 1 - len(items)
                    )
                )
        docs = [document_from_bson(d) for d in items]
        more = len(docs) > limit
        docs = docs[:limit]
        return FactsPage(docs, _encode_cursor(docs[-1]) if more and docs else None)

    # --- writes --------------------------------------------------------------------------

    def set_content_if_unchanged(
        self, fact_id: str, expected_content: str, content: str, vector: list[float]
    ) -> bool:
        """The in-place edit of contract 4.2 rule 1: one ``update_one`` filtered on
        ``_id``, ``type: "fact"`` and the content the curator saw, ``$set`` of only
        ``content`` and ``content_embedding``, no upsert; ``_id``, ``timestamp`` and
        ``metadata`` are kept. False when nothing matched (another curator edited it, or
        the agent replaced or deleted it: the caller re-reads to say which)."""
        if not isinstance(content, str):
            raise InvalidFact("content", "must be a string")
        check_vector(vector)
        self._require_facts_layout()
        with self._guard():
            result = self.collection.update_one(
                {"_id": parse_fact_id(fact_id), "type": FACT_TYPE, "content": expected_content},
                {"$set": {"content": content, "content_embedding": vector}},
                upsert=False,
            )
        return result.matched_count == 1

    def set_embedding_if_missing(self, fact_id: str, content: str, vector: list[float]) -> bool:
        """Embed a legacy fact (contract 4.2 rule 6): ``$set content_embedding`` on the fact
        with this content and no vector yet, no upsert. False when nothing matched."""
        check_vector(vector)
        self._require_facts_layout()
        with self._guard():
            result = self.collection.update_one(
                {
                    "_id": parse_fact_id(fact_id),
                    "type": FACT_TYPE,
                    "content": content,
                    "content_embedding": {"$exists": False},
                },
                {"$set": {"content_embedding": vector}},
                upsert=False,
            )
        return result.matched_count == 1

    def unset_embedding_if_unchanged(self, fact_id: str, content: str) -> bool:
        """The undo of :meth:`set_embedding_if_missing`: the fact with this content loses its
        vector again (it becomes the legacy fact it was). False when nothing matched."""
        self._require_facts_layout()
        with self._guard():
            result = self.collection.update_one(
                {"_id": parse_fact_id(fact_id), "type": FACT_TYPE, "content": content},
                {"$unset": {"content_embedding": ""}},
                upsert=False,
            )
        return result.matched_count == 1

    def insert_fact(self, document: Mapping[str, Any]) -> Any:
        """Insert one document of the agent's shapes (contract 4.2 rule 4; a restore keeps
        its ``_id``). Without ``_id`` pymongo generates the ObjectId, as the agent's
        ``insert_one`` does. Raises :class:`FactIdTaken` when the ``_id`` is in use."""
        doc = dict(document)
        if "_id" not in doc:
            doc["_id"] = ObjectId()
        check_agent_document(doc)
        self._require_facts_layout()
        try:
            with self._guard():
                self.collection.insert_one(doc)
        except Exception as e:
            if isinstance(e.__cause__, DuplicateKeyError):
                raise FactIdTaken(str(doc["_id"])) from e
            raise
        return doc["_id"]

    def id_in_use(self, fact_id: Any) -> bool:
        with self._guard():
            return self.collection.find_one({"_id": fact_id}, {"_id": 1}) is not None

    def delete_if_unchanged(self, fact_id: str, content: Any) -> bool:
        """Delete the document with this ``_id`` while its ``content`` is still ``content``,
        the text the caller archived (None: whatever it holds, for legacy turns, which have
        none). False when nothing matched."""
        self._require_facts_layout()
        filt: dict[str, Any] = {"_id": parse_fact_id(fact_id)}
        if content is not None:
            filt["content"] = content
        with self._guard():
            result = self.collection.delete_one(filt)
        return result.deleted_count == 1

    def insert_into_empty(self, documents: Iterable[Mapping[str, Any]]) -> int:
        """Insert whole documents of the agent's shapes (demo data) into an EMPTY
        collection; refused, writing nothing, when it holds anything. Every fact is
        checked against the contract's rules for what qqweb writes (4.4)."""
        docs = [dict(d) for d in documents]
        for doc in docs:
            check_agent_document(doc)
        self._require_facts_layout()
        with self._guard():
            if self.collection.find_one({}, {"_id": 1}) is not None:
                raise InvalidFact(
                    "collection", f"{'.'.join(self.location)} is not empty; nothing was written"
                )
            if docs:
                self.collection.insert_many(docs, ordered=True)
        return len(docs)

    # --- export and import ----------------------------------------------------------------

    def export_documents(self, batch_size: int = 500) -> Iterator[dict[str, Any]]:
        """Every document exactly as stored (BSON types kept), in ``_id`` order, a batch at
        a time."""
        with self._guard():
            cursor = self.collection.find({}, sort=[("_id", 1)], batch_size=batch_size)
            try:
                yield from cursor
            finally:
                cursor.close()

    def is_empty(self) -> bool:
        with self._guard():
            return self.collection.find_one({}, {"_id": 1}) is None

    def ids_present(self, ids: Iterable[Any]) -> set[Any]:
        """Which of these ``_id`` values the collection holds already."""
        with self._guard():
            return {d["_id"] for d in self.collection.find({"_id": {"$in": list(ids)}}, {"_id": 1})}

    def insert_exported(self, documents: Iterable[Mapping[str, Any]]) -> int:
        """Insert exported documents back as they were read (a restore of this store's own
        documents, so they are not checked against what qqweb may write: they are what
        the agent wrote). A document whose ``_id`` is taken is left out, never replaced
        (no upsert, contract 4.4). Returns how many were inserted."""
        docs = [dict(d) for d in documents]
        if not docs:
            return 0
        self._require_facts_layout()
        try:
            return len(self.collection.insert_many(docs, ordered=False).inserted_ids)
        except BulkWriteError as e:
            if not only_duplicates(e.details):
                raise classify(e) from e
            return int(e.details.get("nInserted", 0))
        except PyMongoError as e:
            raise classify(e) from e
