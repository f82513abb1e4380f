"""What every agent layout shares, so one dashboard shows both agents (design: "Two agent
layouts"): a small protocol, and a registry the apps fill in their ``ready()`` (this
module imports no app, like the audit registry).

A source answers, each in its own terms: a summary (health, counts, what it supports,
its lint's problem count) and a semantic search with the agent's retrieval preview. The
Overview and Search pages show every *other* source next to the notes' own panels; each
page shows only what a source supports (``capabilities``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

SEARCH = "search"
RETRIEVAL = "retrieval-preview"
LINT = "lint"
CURATION = "curation"


@dataclass(frozen=True)
class SourceSummary:
    key: str  # "notes", "facts"
    label: str  # what the pages call it
    layout: str  # the data contract it follows
    url: str  # its own pages
    up: bool
    detail: str = ""  # why it is down, or where it is
    counts: list[tuple[str, int]] = field(default_factory=list)
    problems: int = 0  # the lint's findings that break the agent
    capabilities: frozenset[str] = frozenset()
    links: tuple[str, ...] = ()  # each count's list ("" none), in the order of ``counts``

    @property
    def rows(self) -> list[tuple[str, int, str]]:
        """(name, count, the list it counts or "") for the Overview's card."""
        links = [*self.links, *[""] * (len(self.counts) - len(self.links))]
        return [(name, n, link) for (name, n), link in zip(self.counts, links, strict=False)]


@dataclass(frozen=True)
class SearchHit:
    id: str
    content: str
    score: float
    url: str


@dataclass(frozen=True)
class SourceSearch:
    source: str
    label: str
    hits: list[SearchHit]
    injected_lines: list[str]  # what the agent would put in its prompt for this text
    error: str = ""


class MemorySource(Protocol):
    key: str
    label: str

    def summary(self) -> SourceSummary: ...

    def search(self, text: str, k: int) -> SourceSearch: ...


_factories: dict[str, Callable[[], MemorySource | None]] = {}


def register_source(key: str, factory: Callable[[], MemorySource | None]) -> None:
    """``factory`` builds the source from settings, or None while it is not configured."""
    _factories[key] = factory


def memory_sources(*, exclude: tuple[str, ...] = ()) -> list[MemorySource]:
    """The configured sources, in registration order."""
    sources = []
    for key, factory in _factories.items():
        if key in exclude:
            continue
        source = factory()
        if source is not None:
            sources.append(source)
    return sources
