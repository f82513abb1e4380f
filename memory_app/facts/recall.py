"""The facts agent's retrieval as a memory test sees it (:mod:`qqweb.recall.engines`):
every message, the three facts nearest by its own cosine, no minimum score
(``retrieval_top``), embedded with its own model. A pinned fact that the agent replaced
(its update: delete, then insert) or deleted as the newer of a duplicate pair is followed
to the fact that holds its text now, as qqweb's tracker saw it."""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from django.urls import NoReverseMatch, reverse

from memory_app.facts.lib import Fact
from memory_app.facts.lib.constants import RETRIEVAL_TOP_K
from memory_app.facts.lib.domain import EmbeddingState, embedding_problem
from memory_app.facts.lib.rules import cosine, retrieval_top
from memory_app.facts.lib.store import parse_fact_id
from memory_app.facts.models import ArchivedFact, SeenFact
from memory_app.facts.stores import agent_embedding, facts_enabled, facts_store
from qqweb.lib.errors import QQError
from qqweb.recall.engines import Recall, RecalledItem, Whereabouts

BEYOND = 10
# A pair resolved by keeping the older fact, or by giving it the newer text, archives the
# newer one with the detail "pair <older>/<newer> at cosine ..." (services/pairs.py).
_PAIR = re.compile(r"^pair (\w+)/(\w+) at cosine")
_KEPT_IN_THE_OLDER = (ArchivedFact.KEEP_OLDER, ArchivedFact.KEEP_NEWER_TEXT)


class FactsRecall:
    source = "facts"
    label = "Facts (second agent)"
    k = RETRIEVAL_TOP_K

    def recall(self, query: str, *, without: frozenset[str] = frozenset()) -> Recall:
        try:
            facts = [f for f in facts_store().facts() if f.hex_id not in without]
            top = retrieval_top(agent_embedding(query), facts, self.k + BEYOND)
        except QQError as e:
            return Recall([], error=str(e))
        if top.aborted_by:  # one invalid vector: the agent's retrieval returns nothing
            return Recall([], error=f"the agent's retrieval fails on {top.aborted_by[0].hex_id}")
        items = [
            RecalledItem(r.fact.hex_id, r.fact.text, round(r.score, 4), rank)
            for rank, r in enumerate(top.results, start=1)
        ]
        return Recall(items[: self.k], items[self.k :])

    def whereabouts(self, item_id: str) -> Whereabouts:
        fact = self._fact(item_id)
        if fact is not None:
            return Whereabouts(True, fact.text)
        location = ".".join(facts_store().location)
        archived = (
            ArchivedFact.objects.filter(location=location, fact_id=item_id)
            .order_by("-archived_at")
            .first()
        )
        if archived is not None and archived.reason != ArchivedFact.VANISHED:
            day = archived.archived_at.date().isoformat()
            reason = f"archived by qqweb on {day} ({archived.reason})"
            kept = _PAIR.match(archived.detail)
            if archived.reason in _KEPT_IN_THE_OLDER and kept and kept.group(2) == item_id:
                # a resolved pair: the older fact holds its text (or says the same) now
                reason += f": now {kept.group(1)}"
                return Whereabouts(False, archived.content, reason, now_id=kept.group(1))
            return Whereabouts(False, archived.content, reason)
        seen = SeenFact.objects.filter(location=location, fact_id=item_id).first()
        if seen is not None and seen.vanished_at is not None:
            day = seen.vanished_at.date().isoformat()
            if seen.related_id:
                return Whereabouts(
                    False,
                    seen.content,
                    f"{seen.get_cause_display()} by the agent on {day}: now {seen.related_id}",
                    now_id=seen.related_id,
                )
            return Whereabouts(False, seen.content, f"deleted by the agent on {day}")
        return Whereabouts(False, reason="deleted: it is not in the facts store")

    def present(self, item_ids: Collection[str]) -> set[str]:
        """One read of the facts' ids, then each found one's document (a fact, not a
        legacy turn or a foreign document): the facts memory is small. Every id the store
        reads as one ``_id`` (a 24-hex id in lower case and in capitals) is answered."""
        by_id: dict[Any, list[str]] = {}
        for item_id in item_ids:
            by_id.setdefault(parse_fact_id(item_id), []).append(item_id)
        found = facts_store().ids_present(by_id) if by_id else set()
        return {i for key in found if self._fact(by_id[key][0]) is not None for i in by_id[key]}

    def left_out(self, query: str, item_id: str) -> str:
        """The facts agent has no minimum score: a present fact is only outranked, unless
        its vector is not one the agent can compare."""
        fact = self._fact(item_id)
        if fact is not None and not isinstance(fact.content_embedding, list):
            return "it has no embedding the agent can search"
        return ""

    def unsearchable(self, item_id: str) -> str:
        """A fact whose vector the agent cannot compare (none: a legacy fact; empty, all
        zeros or invalid) is never among its three nearest."""
        fact = self._fact(item_id)
        if fact is None:
            return ""
        state = fact.embedding
        if state is EmbeddingState.OK:
            return ""
        if state is EmbeddingState.MISSING:
            return (
                "this fact has no vector yet, so no search can recall it: pin it once "
                "“Embed this legacy fact…” on its page has given it one"
            )
        what = {
            EmbeddingState.EMPTY: "an empty vector",
            EmbeddingState.ZERO: "a vector of zeros",
        }.get(state, f"an invalid vector ({embedding_problem(fact.content_embedding)})")
        return f"this fact has {what}, which the agent skips, so no search can recall it"

    def score(self, query: str, item_id: str) -> float | None:
        fact = self._fact(item_id)
        if fact is None or not isinstance(fact.content_embedding, list):
            return None
        return round(cosine(agent_embedding(query), fact.content_embedding), 4)

    @staticmethod
    def _fact(item_id: str) -> Fact | None:
        try:
            doc = facts_store().get(item_id)
        except QQError:
            return None
        return doc if isinstance(doc, Fact) else None

    def item_url(self, item_id: str) -> str:
        try:
            return reverse("facts_app:fact_detail", args=[item_id])
        except NoReverseMatch:  # an id the URL cannot carry
            return ""


def facts_recall() -> FactsRecall | None:
    """The engine, or None while the facts store is not configured."""
    return FactsRecall() if facts_enabled() else None
