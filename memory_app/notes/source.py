"""qq's notes as a :class:`qqweb.lib.sources.MemorySource` (the notes pages keep their own,
richer panels; this is what the cross-agent views and ``GET /api/sources`` show)."""

from __future__ import annotations

from django.conf import settings
from django.urls import reverse

from memory_app.notes import selectors
from qqweb.lib.errors import QQError
from qqweb.lib.sources import RETRIEVAL, SEARCH, SearchHit, SourceSearch, SourceSummary


class NotesSource:
    key = "notes"
    label = "Notes (qq)"

    def summary(self) -> SourceSummary:
        url = reverse("memory_app:notes")
        caps = frozenset({SEARCH, RETRIEVAL, "curation", "importance", "sections", "graph"})
        overview = selectors.memory_overview()
        where = f"{settings.QQ_MONGO_DB}.{settings.QQ_MONGO_COLLECTION}"
        if "mongodb" in overview.errors:
            detail = overview.errors["mongodb"]
            return SourceSummary(self.key, self.label, "qq", url, False, detail, [], 0, caps)
        counts = [("notes", overview.notes_total or 0), *overview.notes_by_section]
        return SourceSummary(self.key, self.label, "qq", url, True, where, counts, 0, caps)

    def search(self, text: str, k: int) -> SourceSearch:
        try:
            outcome = selectors.notes_search(query=text, limit=k)
        except QQError as e:
            return SourceSearch(self.key, self.label, [], [], str(e))
        hits = [
            SearchHit(
                n.note_id,
                n.content,
                float(n.score or 0.0),
                reverse("memory_app:note_detail", args=[n.note_id]),
            )
            for n in outcome.results
        ]
        return SourceSearch(self.key, self.label, hits, [])


def notes_source() -> NotesSource:
    return NotesSource()
