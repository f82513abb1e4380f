"""The facts store as a :class:`qqweb.lib.sources.MemorySource`: its summary for the
Overview and its semantic search, with the agent's retrieval preview, for Search."""

from __future__ import annotations

from django.urls import reverse

from memory_app.facts import selectors
from memory_app.facts.lib.constants import RETRIEVAL_TOP_K
from memory_app.facts.lib.rules import Retrieval
from memory_app.facts.stores import facts_enabled
from qqweb.lib.errors import QQError
from qqweb.lib.sources import (
    CURATION,
    LINT,
    RETRIEVAL,
    SEARCH,
    SearchHit,
    SourceSearch,
    SourceSummary,
)


class FactsSource:
    key = "facts"
    label = "Facts (second agent)"

    def summary(self) -> SourceSummary:
        url = reverse("facts_app:facts")
        caps = frozenset({SEARCH, RETRIEVAL, LINT, CURATION})
        try:
            s = selectors.facts_summary()
        except QQError as e:
            return SourceSummary(self.key, self.label, "facts", url, False, str(e), [], 0, caps)
        return SourceSummary(
            self.key,
            self.label,
            "facts",
            url,
            True,
            s.location,
            s.counts,
            s.breaks,
            caps,
            _count_links(url),
        )

    def search(self, text: str, k: int) -> SourceSearch:
        try:
            retrieval = selectors.facts_search(text, k)
        except QQError as e:
            return SourceSearch(self.key, self.label, [], [], str(e))
        hits = [
            SearchHit(
                r.fact.hex_id,
                r.fact.text,
                r.score,
                reverse("facts_app:fact_detail", args=[r.fact.hex_id]),
            )
            for r in retrieval.results
        ]
        preview = Retrieval(retrieval.results[:RETRIEVAL_TOP_K], retrieval.aborted_by)
        return SourceSearch(self.key, self.label, hits, preview.injected_lines)


def facts_source() -> FactsSource | None:
    return FactsSource() if facts_enabled() else None


def _count_links(facts_url: str) -> tuple[str, ...]:
    """The list each count of ``facts_summary`` counts, in its order."""
    return (
        f"{facts_url}?kind=fact",
        f"{facts_url}?embedding=ok",
        f"{facts_url}?embedding=missing",
        f"{facts_url}?kind=turn",
        reverse("facts_app:next_start"),
        reverse("facts_app:archive"),
        reverse("facts_app:vanished"),
    )
