"""The notes as typed domain objects.

A :class:`Note` is what the store hands the dashboard: the contract's fields, typed, and
``extra`` for everything else in the document (our ``qqweb_*`` fields, fields a newer
agent adds, and a modelled field whose stored value is not of the contract's type, kept
as it was). :meth:`Note.to_document` gives back the document exactly as it was read, so
nothing the agent wrote is dropped or rewritten.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Self

from memory_app.notes.lib.constants import DEFAULT_DECAY_RATE, DEFAULT_IMPORTANCE

# field name -> (accepted types, value when absent or of another type)
_MODELLED: dict[str, tuple[tuple[type, ...], Any]] = {
    "content": ((str,), ""),
    "section": ((str, type(None)), None),
    "importance": ((float, int), DEFAULT_IMPORTANCE),
    "decay_rate": ((float, int), DEFAULT_DECAY_RATE),
    "access_count": ((int,), 0),
    "created_at": ((datetime, type(None)), None),
    "updated_at": ((datetime, type(None)), None),
    "last_accessed": ((datetime, type(None)), None),
    "embedding": ((list,), []),
    "metadata": ((dict,), {}),
    "source": ((dict, type(None)), None),
    "source_history": ((list,), []),
}


@dataclass(frozen=True)
class Note:
    note_id: str
    content: str = ""
    section: str | None = None
    importance: float = DEFAULT_IMPORTANCE
    decay_rate: float = DEFAULT_DECAY_RATE
    access_count: int = 0
    created_at: datetime | None = None
    updated_at: datetime | None = None
    last_accessed: datetime | None = None
    embedding: list[float] = field(default_factory=list)
    metadata: Mapping[str, Any] = field(default_factory=dict)
    source: Mapping[str, Any] | None = None
    source_history: list[Mapping[str, Any]] = field(default_factory=list)
    extra: Mapping[str, Any] = field(default_factory=dict)
    absent: frozenset[str] = frozenset()  # modelled fields the document did not have
    # the document's field order, so a note written back (an undo's exact reinsert, an
    # archive line) keeps the agent's order
    order: tuple[str, ...] = field(default=(), compare=False, repr=False)
    # what a read adds, not stored: decayed importance now, a search score
    effective_importance: float | None = None
    score: float | None = None

    @classmethod
    def from_document(cls, doc: Mapping[str, Any]) -> Self:
        values: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        absent: set[str] = set()
        for name, (types, default) in _MODELLED.items():
            if name not in doc:
                absent.add(name)
                values[name] = default
                continue
            value = doc[name]
            if isinstance(value, bool) or not isinstance(value, types):
                extra[name] = value  # kept as stored; the typed field reads the default
                values[name] = default
            else:
                values[name] = value
        for name, value in doc.items():
            if name not in _MODELLED and name not in ("note_id", "_id"):
                extra[name] = value
        return cls(
            note_id=str(doc.get("note_id", "")),
            extra=extra,
            absent=frozenset(absent),
            order=tuple(name for name in doc if name != "_id"),
            **values,
        )

    def to_document(self) -> dict[str, Any]:
        """The document as it was read (``_id`` aside), in its field order."""
        doc: dict[str, Any] = {"note_id": self.note_id}
        for name in _MODELLED:
            if name not in self.absent:
                doc[name] = getattr(self, name)
        doc.update(self.extra)
        if not self.order:
            return doc
        ordered = {name: doc[name] for name in self.order if name in doc}
        ordered.update(doc)  # a field set since the read comes last
        return ordered

    def annotated(
        self, *, effective_importance: float | None = None, score: float | None = None
    ) -> Self:
        return replace(self, effective_importance=effective_importance, score=score)

    @property
    def embedding_dimension(self) -> int | None:
        """The vector's length (0: the agent's embedding failed); None when the read left
        the embedding out (the list does)."""
        return None if "embedding" in self.absent else len(self.embedding)


def mistyped_fields(doc: Mapping[str, Any]) -> list[str]:
    """The contract's fields that ``doc`` holds with a value of another type (what
    :meth:`Note.from_document` would keep in ``extra``), each as 'field (a type)'."""
    return [
        f"{name} (a {type(doc[name]).__name__})"
        for name, (types, _default) in _MODELLED.items()
        if name in doc and (isinstance(doc[name], bool) or not isinstance(doc[name], types))
    ]
