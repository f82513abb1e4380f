"""How the apps read each other: the notes that name an entity (the graph's entity page)
and the entities a text names and the graph at a glance (the notes' retrieval preview and
Overview). A small protocol per direction, kernel dataclasses for what crosses, and a
registry each app fills in its ``ready()``; this module imports no app, like
:mod:`qqweb.lib.sources` and the audit registry.

A reader never raises for its store being down: it answers an empty result with
``unavailable`` saying why, so the page that asked shows its own part and a line about
the other. Without the other app registered, a reader answers as if it had nothing:
no note names the entity, the text names no entity, and the graph summary is
unavailable because the graph is not installed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class NoteMention:
    """A note whose text names an entity."""

    note_id: str
    content: str
    section: str
    importance: float | None = None


@dataclass(frozen=True)
class NoteMentions:
    notes: list[NoteMention]
    unavailable: str = ""  # why ``notes`` is empty: the notes' store is down


@dataclass(frozen=True)
class EntityRelation:
    """One relationship of a related entity, seen from it."""

    type: str
    other: str | None  # the other end's name
    outgoing: bool


@dataclass(frozen=True)
class RelatedEntity:
    """An entity a text names, with a few of its relationships."""

    label: str
    name: str
    description: str | None
    rels: list[EntityRelation]


@dataclass(frozen=True)
class RelatedEntities:
    entities: list[RelatedEntity]
    unavailable: str = ""  # why ``entities`` is empty: the graph is down


@dataclass(frozen=True)
class GraphSummary:
    """The graph at a glance: entity counts by label, relationship counts by type,
    provenance sources and orphans; ``available=False`` with ``error`` when it is down."""

    available: bool = False
    error: str = ""
    entities: int = 0
    sources: int = 0
    orphans: int = 0
    by_label: list[tuple[str, int]] = field(default_factory=list)
    by_relationship_type: list[tuple[str, int]] = field(default_factory=list)

    @property
    def relationships(self) -> int:
        return sum(n for _, n in self.by_relationship_type)


class NotesReader(Protocol):
    def notes_mentioning(self, names: list[str], limit: int = 20) -> NoteMentions: ...


class EntitiesReader(Protocol):
    def entities_mentioned_in(self, text: str, limit: int = 10) -> RelatedEntities: ...

    def graph_summary(self) -> GraphSummary: ...


class _NoNotes:
    def notes_mentioning(self, names: list[str], limit: int = 20) -> NoteMentions:
        return NoteMentions([])  # no notes: none names the entity


class _NoGraph:
    def entities_mentioned_in(self, text: str, limit: int = 10) -> RelatedEntities:
        return RelatedEntities([])  # no graph: the text names no entity

    def graph_summary(self) -> GraphSummary:
        return GraphSummary(available=False, error="No knowledge graph app is installed.")


@dataclass
class _Registry:
    notes: NotesReader | None = None
    entities: EntitiesReader | None = None


_registry = _Registry()


def register_notes_reader(reader: NotesReader | None) -> None:
    """The notes app registers its reader in ``ready()`` (None takes it back)."""
    _registry.notes = reader


def register_entities_reader(reader: EntitiesReader | None) -> None:
    """The graph app registers its reader in ``ready()`` (None takes it back)."""
    _registry.entities = reader


def notes_reader() -> NotesReader:
    """The notes app's reader, or one answering that the notes are not installed."""
    return _registry.notes or _NoNotes()


def entities_reader() -> EntitiesReader:
    """The graph app's reader, or one answering that no graph is installed."""
    return _registry.entities or _NoGraph()
