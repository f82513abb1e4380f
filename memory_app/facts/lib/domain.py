"""Typed documents of the facts collection (``facts-data-contract.md`` 2.2 and 2.3).

Every document the store reads becomes one of:

- :class:`Fact`: ``type: "fact"`` (with or without ``content_embedding``: without it, it
  is a legacy fact the agent cannot see);
- :class:`LegacyTurn`: an untyped conversation turn of the agent's first days;
- :class:`ForeignDocument`: anything else (another ``type``, a qq note...), kept as read.

Fields are kept exactly as stored, whatever their BSON type, because the compatibility
lint must see the broken ones; a field that is absent is :data:`MISSING` (not None, which
is a stored ``null``). Fields we do not model stay in ``extra``; :meth:`to_document` gives
back the exact document.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from functools import cached_property
from typing import Any, Final

import numpy as np
from bson import ObjectId
from bson.int64 import Int64

from memory_app.facts.lib.constants import DIMENSION, FACT_TYPE
from memory_app.facts.lib.errors import InvalidFact
from qqweb.lib.mongo.safe_values import stored_value_problem

FactId = ObjectId  # the agent's ``_id``: MongoDB's ObjectId (facts-data-contract.md)


def new_fact_id() -> FactId:
    """A new ``_id`` as the agent's inserts make one."""
    return ObjectId()


def fact_id_at(when: datetime, tail: bytes) -> FactId:
    """The ``_id`` whose embedded time is ``when`` (to the second), followed by ``tail``
    (8 bytes: ``ObjectId.from_datetime`` would zero-fill them)."""
    seconds = int((when.replace(tzinfo=None) - datetime(1970, 1, 1)).total_seconds())
    return ObjectId(seconds.to_bytes(4, "big") + tail)


def inserted_at(hex_id: str) -> datetime | None:
    """When the fact of ``hex_id`` was inserted (its ObjectId's second, aware UTC), or None
    for an id that is no ObjectId."""
    return ObjectId(hex_id).generation_time if ObjectId.is_valid(hex_id) else None


def written_since(hex_id: str, since: datetime) -> bool:
    """Inserted after ``since`` (an ObjectId's time, to the second): the agent's saves and
    updates after an action. Another ``_id`` (the agent never writes one) is not."""
    if not ObjectId.is_valid(hex_id):
        return False
    return ObjectId(hex_id).generation_time >= since.astimezone(UTC).replace(microsecond=0)


class _Missing:
    _instance: _Missing | None = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Final = _Missing()


class EmbeddingState(StrEnum):
    OK = "ok"  # a list of 384 finite numbers, not all zero
    MISSING = "missing"  # no content_embedding: invisible to the agent
    EMPTY = "empty"  # [] : skipped by the agent
    ZERO = "zero"  # all zeros: skipped by the agent
    INVALID = "invalid"  # breaks the agent's retrieval, add and cleanup (2.7)


_NUMBER_TYPES = frozenset({float, int, Int64})


def embedding_state(value: Any, dimension: int = DIMENSION) -> EmbeddingState:
    """How the agent's code fares with a stored ``content_embedding`` value."""
    if value is MISSING:
        return EmbeddingState.MISSING
    if not isinstance(value, list):
        return EmbeddingState.INVALID  # null, binary, a string, an object
    if not value:
        return EmbeddingState.EMPTY
    if not set(map(type, value)) <= _NUMBER_TYPES:  # strings, booleans, nested lists
        return EmbeddingState.INVALID
    if len(value) != dimension:
        return EmbeddingState.INVALID
    array = np.asarray(value, dtype=np.float64)
    if not np.isfinite(array).all():
        return EmbeddingState.INVALID
    if not array.any():
        return EmbeddingState.ZERO
    return EmbeddingState.OK


def embedding_problem(value: Any, dimension: int = DIMENSION) -> str:
    """Why a ``content_embedding`` is invalid, in words ('' when it is not)."""
    if embedding_state(value, dimension) is not EmbeddingState.INVALID:
        return ""
    if value is None:
        return "a null vector"
    if isinstance(value, bytes):
        return "a binary vector (BSON binary / packed float32)"
    if not isinstance(value, list):
        return f"a {type(value).__name__}, not a list of numbers"
    if not set(map(type, value)) <= _NUMBER_TYPES:
        return "a list holding values that are not numbers"
    if len(value) != dimension:
        return f"a vector of length {len(value)}, not {dimension}"
    return "a vector with NaN or infinite values"


@dataclass(frozen=True)
class _Stored:
    id: Any  # an ObjectId when written by the agent or by qqweb
    timestamp: Any = MISSING
    metadata: Any = MISSING
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def hex_id(self) -> str:
        return str(self.id)

    @property
    def id_is_objectid(self) -> bool:
        return isinstance(self.id, ObjectId)

    @property
    def id_time(self) -> datetime | None:
        """The insert second embedded in an ObjectId (naive UTC)."""
        return self.id.generation_time.replace(tzinfo=None) if self.id_is_objectid else None

    @property
    def timestamp_is_date(self) -> bool:
        return isinstance(self.timestamp, datetime)

    def _fields(self) -> dict[str, Any]:
        return {"_id": self.id, "timestamp": self.timestamp, "metadata": self.metadata}

    def to_document(self) -> dict[str, Any]:
        """The document as it was read: absent fields stay absent, ``extra`` is kept."""
        fields = {k: v for k, v in self._fields().items() if v is not MISSING}
        return {**fields, **self.extra}


@dataclass(frozen=True)
class Fact(_Stored):
    type: Any = FACT_TYPE
    content: Any = MISSING
    content_embedding: Any = MISSING

    kind = "fact"

    @cached_property
    def embedding(self) -> EmbeddingState:
        return embedding_state(self.content_embedding)

    @property
    def is_legacy(self) -> bool:
        """A fact without ``content_embedding`` (written 2025-04-20, before embeddings)."""
        return self.content_embedding is MISSING

    @property
    def text(self) -> str:
        return self.content if isinstance(self.content, str) else ""

    def _fields(self) -> dict[str, Any]:
        return {
            "_id": self.id,
            "type": self.type,
            "content": self.content,
            "content_embedding": self.content_embedding,
            "timestamp": self.timestamp,
            "metadata": self.metadata,
        }


@dataclass(frozen=True)
class LegacyTurn(_Stored):
    """``{_id, user_input, llm_response, timestamp, metadata}``: no ``type``, no
    ``content``. The agent ignores them; shown read-only."""

    user_input: Any = MISSING
    llm_response: Any = MISSING

    kind = "turn"
    is_legacy = True

    @property
    def text(self) -> str:
        parts = [p for p in (self.user_input, self.llm_response) if isinstance(p, str)]
        return " / ".join(parts)

    def _fields(self) -> dict[str, Any]:
        return {
            "_id": self.id,
            "user_input": self.user_input,
            "llm_response": self.llm_response,
            "timestamp": self.timestamp,
            "metadata": self.metadata,
        }


@dataclass(frozen=True)
class ForeignDocument(_Stored):
    """Neither a fact nor a legacy turn; every field but ``_id`` is in ``extra``."""

    kind = "foreign"
    is_legacy = False

    @property
    def text(self) -> str:
        content = self.extra.get("content")
        return content if isinstance(content, str) else ""

    def _fields(self) -> dict[str, Any]:
        return {"_id": self.id, "timestamp": self.timestamp}


StoredDocument = Fact | LegacyTurn | ForeignDocument

_FACT_FIELDS = ("_id", "type", "content", "content_embedding", "timestamp", "metadata")
_TURN_FIELDS = ("_id", "user_input", "llm_response", "timestamp", "metadata")


def is_legacy_turn(doc: Mapping[str, Any]) -> bool:
    return "type" not in doc and "content" not in doc and ("user_input" in doc or "model" in doc)


def document_from_bson(doc: Mapping[str, Any]) -> StoredDocument:
    """The typed form of one stored document (see the module's docstring)."""
    if doc.get("type") == FACT_TYPE:
        extra = {k: v for k, v in doc.items() if k not in _FACT_FIELDS}
        return Fact(
            id=doc.get("_id"),
            type=doc["type"],
            content=doc.get("content", MISSING),
            content_embedding=doc.get("content_embedding", MISSING),
            timestamp=doc.get("timestamp", MISSING),
            metadata=doc.get("metadata", MISSING),
            extra=extra,
        )
    if is_legacy_turn(doc):
        extra = {k: v for k, v in doc.items() if k not in _TURN_FIELDS}
        return LegacyTurn(
            id=doc.get("_id"),
            user_input=doc.get("user_input", MISSING),
            llm_response=doc.get("llm_response", MISSING),
            timestamp=doc.get("timestamp", MISSING),
            metadata=doc.get("metadata", MISSING),
            extra=extra,
        )
    return ForeignDocument(
        id=doc.get("_id"),
        timestamp=doc.get("timestamp", MISSING),
        extra={k: v for k, v in doc.items() if k not in ("_id", "timestamp")},
    )


def check_vector(vector: Any) -> None:
    """A ``content_embedding`` qqweb may write: a list of 384 finite Python floats. (That
    it comes from all-MiniLM-L6-v2 is the caller's check: the store cannot see it.)"""
    if not (
        isinstance(vector, list)
        and len(vector) == DIMENSION
        and all(type(x) is float and math.isfinite(x) for x in vector)
    ):
        raise InvalidFact("content_embedding", f"must be a list of {DIMENSION} finite floats")


def check_agent_document(doc: Mapping[str, Any]) -> None:
    """Refuse what the agent could not live with (contract 4.4): a fact must have an
    ObjectId ``_id``, ``type: "fact"``, string ``content``, a date ``timestamp``, object
    ``metadata`` and, when present, a list of 384 finite floats; a legacy turn an ObjectId
    and a date."""
    if not isinstance(doc.get("_id"), ObjectId):
        raise InvalidFact("_id", "must be an ObjectId")
    if not isinstance(doc.get("timestamp"), datetime):
        raise InvalidFact("timestamp", "must be a date")
    if is_legacy_turn(doc):
        return
    if doc.get("type") != FACT_TYPE:
        raise InvalidFact("type", 'must be exactly "fact"')
    if not isinstance(doc.get("content"), str):
        raise InvalidFact("content", "must be a string")
    if not isinstance(doc.get("metadata"), dict):
        raise InvalidFact("metadata", "must be an object")
    if "content_embedding" in doc:
        check_vector(doc["content_embedding"])


def fact_document_problem(doc: Mapping[str, Any]) -> str:
    """Why a whole document from outside (an import) may not be written into the facts
    collection, in words ('' when it may): no operator or dotted key and only finite
    numbers anywhere, then :func:`check_agent_document`, what qqweb's own inserts pass (a
    qq note, or anything but a fact or a legacy turn, is refused)."""
    problem = stored_value_problem(doc)
    if problem:
        return problem
    if "note_id" in doc and not is_legacy_turn(doc):
        return "it is a qq note (it has a note_id), not a document of the facts collection"
    try:
        check_agent_document(doc)
    except InvalidFact as e:
        return f"its {e.field} {e.message}"
    return ""
