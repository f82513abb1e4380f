"""How a memory test asks an agent what it recalls: a small protocol, kernel-free
dataclasses for what crosses, and a registry each app fills in its ``ready()`` (this module
imports no app, like :mod:`qqweb.lib.links` and the audit registry).

An engine answers with the agent's *own* retrieval for a message, in the agent's order:
the notes agent's cited notes (score at least ``QQ_CITE_THRESHOLD``, effective importance
at least ``QQ_MIN_RETRIEVAL_IMPORTANCE``) with its core notes always injected; the facts
agent's three nearest facts. ``without`` asks what the agent would retrieve once the given
items are gone (a plan's archived or deleted notes), computed without a write.

When a pinned item is not retrieved, :meth:`RecallEngine.whereabouts` says why in the
user's terms: archived (when, why), merged into another item, deleted, left out by the
agent's rules (its score or importance), or outranked."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class RecalledItem:
    """One item the agent would inject, at ``rank`` (1-based) in its order."""

    id: str
    text: str
    score: float | None  # None: always injected (a core note)
    rank: int


@dataclass(frozen=True)
class Recall:
    """What the agent injects for a message: ``items`` in its order (at most the engine's
    ``k`` ranked ones, after the ones it always injects), and the next few it ranked but
    left out (``beyond``: to say what outranked a pinned item and by how much)."""

    items: list[RecalledItem]
    beyond: list[RecalledItem] = field(default_factory=list)
    error: str = ""  # the store is down or the model cannot embed: nothing was retrieved

    def rank_of(self, item_id: str) -> int | None:
        """The pinned item's rank among what the agent injects, or None."""
        return next((i.rank for i in self.items if i.id == item_id), None)

    def ranked_beyond(self, item_id: str) -> RecalledItem | None:
        return next((i for i in self.beyond if i.id == item_id), None)


@dataclass(frozen=True)
class Whereabouts:
    """Where a pinned item is now. ``present``: the agent can still retrieve it;
    otherwise ``reason`` says where it went ("archived on 2026-11-20: decayed",
    "merged into note_ab12... on ...", "deleted") and ``now_id`` names the item that
    holds its text now (a merge's survivor), if any."""

    present: bool
    text: str = ""
    reason: str = ""
    now_id: str = ""


class RecallEngine(Protocol):
    source: str  # "notes", "facts"
    label: str  # what the pages call the agent's memory
    k: int  # how many ranked items the agent injects for a message

    def recall(self, query: str, *, without: frozenset[str] = frozenset()) -> Recall: ...

    def whereabouts(self, item_id: str) -> Whereabouts: ...

    def present(self, item_ids: Collection[str]) -> set[str]:
        """Which of ``item_ids`` the agent can retrieve now (``whereabouts(i).present``
        for each), in as few reads as the store allows: a plan's preview asks it of
        every pin."""
        ...

    def left_out(self, query: str, item_id: str) -> str:
        """Why the agent's rules leave a present item out for the query ("scores 0.21,
        below the citation threshold 0.3", "its effective importance 0.12 is below 0.2",
        "it has no embedding"), or "" when they let it in (then it was outranked)."""
        ...

    def unsearchable(self, item_id: str) -> str:
        """Why no search can recall a present item, whatever the question ("this fact
        has no vector yet, so no search can recall it"), or "" when a search can: a pin
        on such an item could never pass, so pinning it is refused."""
        ...

    def score(self, query: str, item_id: str) -> float | None:
        """The agent's score of the item for the query (None: it has no embedding or
        is gone), to say by how much it missed."""
        ...

    def item_url(self, item_id: str) -> str:
        """The page showing the item ("" when it has none): the app knows its pages."""
        ...


_engines: dict[str, Callable[[], RecallEngine | None]] = {}


def register_recall_engine(source: str, factory: Callable[[], RecallEngine | None]) -> None:
    """An app registers the factory of its engine in ``ready()``; the factory answers None
    while that memory is not configured (the facts store without its URI)."""
    _engines[source] = factory


def recall_engine(source: str) -> RecallEngine | None:
    factory = _engines.get(source)
    return factory() if factory else None


def recall_sources() -> list[str]:
    return sorted(_engines)
