"""The layout guard: which agent's layout a collection holds, judged from a sample.

Two agents keep their memory in MongoDB with different layouts: qq's notes (every document
has a ``note_id``) and the second agent's facts (``type: "fact"`` documents, plus the
legacy conversation turns ``{user_input, llm_response, ...}`` of its first days; see
``facts-data-contract.md`` 2.3). A store must never write to, or create an index on, the
other layout's collection: qq's unique ``note_id`` index alone would stop the facts agent
from saving anything. Both stores ask :func:`sample_layout` before their first write and
refuse with :class:`WrongLayout`, which names the layout found.

The sample is the first documents in natural order (no filter, no sort, a small
projection), so it costs one short read whatever the collection's size.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from qqweb.lib.errors import StoreError

SAMPLE_SIZE = 50
SAMPLE_PROJECTION = {"note_id": 1, "type": 1, "user_input": 1, "llm_response": 1, "content": 1}


class Layout(StrEnum):
    QQ_NOTES = "qq notes"
    FACTS = "facts"
    EMPTY = "empty"
    UNKNOWN = "unknown"


def document_layout(document: Mapping[str, Any]) -> Layout:
    """The layout one document belongs to: a ``note_id`` is qq's; ``type: "fact"`` or an
    untyped conversation turn is the facts agent's; anything else is unknown."""
    if "note_id" in document:
        return Layout.QQ_NOTES
    if document.get("type") == "fact":
        return Layout.FACTS
    if "type" not in document and ("user_input" in document or "llm_response" in document):
        return Layout.FACTS
    return Layout.UNKNOWN


@dataclass(frozen=True)
class LayoutVerdict:
    layout: Layout
    sampled: int = 0
    counts: dict[str, int] = field(default_factory=dict)

    def describe(self) -> str:
        if self.layout is Layout.EMPTY:
            return "an empty collection"
        parts = ", ".join(f"{n} {name}" for name, n in sorted(self.counts.items()))
        return f"the {self.layout.value} layout ({parts} among {self.sampled} sampled documents)"


def layout_of(documents: Iterable[Mapping[str, Any]]) -> LayoutVerdict:
    """The layout of a sample: one layout when every document has it, else unknown."""
    counts = Counter(document_layout(doc).value for doc in documents)
    sampled = sum(counts.values())
    if not sampled:
        return LayoutVerdict(Layout.EMPTY)
    layout = Layout(next(iter(counts))) if len(counts) == 1 else Layout.UNKNOWN
    return LayoutVerdict(layout, sampled, dict(counts))


def sample_layout(collection: Any, size: int = SAMPLE_SIZE) -> LayoutVerdict:
    """One short read (the first ``size`` documents, a few fields) judged by
    :func:`layout_of`. Driver errors are left to the calling store to classify."""
    return layout_of(collection.find({}, SAMPLE_PROJECTION, limit=size))


class WrongLayout(StoreError):
    """A store was asked to write to (or index) a collection of another layout: a
    misconfiguration, refused before anything is written (500, never retried)."""

    def __init__(self, store_layout: Layout, where: str, verdict: LayoutVerdict) -> None:
        super().__init__(
            "mongodb",
            f"{where} holds {verdict.describe()}, not the {store_layout.value} layout this "
            "store writes; nothing was written (check the database and collection settings)",
        )
        self.store_layout = store_layout
        self.where = where
        self.verdict = verdict

    def __reduce__(self) -> tuple[type, tuple[Any, ...]]:  # picklable for Celery results
        return type(self), (self.store_layout, self.where, self.verdict)
