"""The notes agent's retrieval as a memory test sees it (:mod:`qqweb.recall.engines`).

The agent injects its core notes on every message, then the notes that score at least
``QQ_CITE_THRESHOLD`` for the message and whose effective importance is at least
``QQ_MIN_RETRIEVAL_IMPORTANCE``, best first, at most ``NOTES_RECALL_K`` (the retrieval
preview's limit). A core note's id is ``core:`` and its text; it counts at rank 1 while
core.md holds it. A pinned note that was merged or superseded is followed to the note
that holds its text now (the archive line's "Consolidated with <id>"), so a dedup merge
keeps its pins while the survivor is recalled."""

from __future__ import annotations

import re
from collections.abc import Collection

import numpy as np
from django.conf import settings
from django.urls import NoReverseMatch, reverse

from memory_app.notes.lib.documents import effective_importance, utcnow_naive
from memory_app.notes.selectors.retrieval import PREVIEW_LIMIT
from memory_app.notes.stores import archive_manager, core_notes, notes_store
from qqweb.lib.clients import embedder
from qqweb.lib.errors import QQError
from qqweb.lib.query_vectors import query_vector
from qqweb.recall.engines import Recall, RecalledItem, Whereabouts

NOTES_RECALL_K = PREVIEW_LIMIT
CORE_PREFIX = "core:"
BEYOND = 10  # ranked past k and reported, to say what outranked a pinned note
MAX_READ = 5000  # notes read for one query at most, when the nearest are mostly decayed
_MERGED_INTO = re.compile(r"^Consolidated with (\S+)")
_FOLLOW_LIMIT = 5  # merges followed from a pinned note to the one holding its text now


class NotesRecall:
    source = "notes"
    label = "Notes (qq agent)"
    k = NOTES_RECALL_K

    def recall(self, query: str, *, without: frozenset[str] = frozenset()) -> Recall:
        core = [
            RecalledItem(CORE_PREFIX + item, item, None, 1)
            for items in core_notes().get_all_items().values()
            for item in items
            if CORE_PREFIX + item not in without
        ]
        try:
            ranked = self._ranked(query, without)
        except QQError as e:
            return Recall(core, error=str(e))
        return Recall(core + ranked[: self.k], ranked[self.k : self.k + BEYOND])

    def _ranked(self, query: str, without: frozenset[str]) -> list[RecalledItem]:
        """The notes the agent would cite, best first, until ``k + BEYOND`` of them: the
        nearest notes above the citation threshold are read in widening windows (20, 80,
        320, ... notes), since decayed notes among the nearest do not count; at most
        ``MAX_READ`` notes are read for one query."""
        vector = query_vector(embedder(), query)
        store = notes_store()
        want = self.k + BEYOND
        limit = want + len(without)
        now = utcnow_naive()
        while True:
            hits = store.vector_index.search(
                vector, limit=limit, min_score=settings.QQ_CITE_THRESHOLD
            ).hits
            found = store.notes_by_ids(dict(hits))
            ranked: list[RecalledItem] = []
            for note_id, score in hits:
                note = found.get(note_id)
                if note is None or note_id in without:
                    continue
                if (
                    effective_importance(note.to_document(), now)
                    < settings.QQ_MIN_RETRIEVAL_IMPORTANCE
                ):
                    continue  # the agent leaves it out
                ranked.append(RecalledItem(note_id, note.content, round(score, 4), len(ranked) + 1))
            if len(ranked) >= want or len(hits) < limit or limit >= MAX_READ:
                return ranked
            limit = min(limit * 4, MAX_READ)

    def whereabouts(self, item_id: str) -> Whereabouts:
        if item_id.startswith(CORE_PREFIX):
            text = item_id[len(CORE_PREFIX) :]
            held = any(text in items for items in core_notes().get_all_items().values())
            return Whereabouts(held, text, "" if held else "no longer in core.md")
        note = notes_store().note(item_id)
        if note is not None:
            return Whereabouts(True, note.content)
        archived = archive_manager().find_line(item_id)
        if archived is None:
            return Whereabouts(False, reason="deleted: it is neither in MongoDB nor archived")
        merged = _MERGED_INTO.match(archived.reason)
        day = archived.archived_at[:10]
        if merged:
            survivor = self._survivor(merged.group(1))
            return Whereabouts(
                False, archived.content, f"merged into {survivor} on {day}", now_id=survivor
            )
        return Whereabouts(False, archived.content, f"archived on {day}: {archived.reason}")

    def present(self, item_ids: Collection[str]) -> set[str]:
        """One ``$in`` read for the notes, one read of core.md for the core notes (held
        when a bullet is exactly the text, as in ``whereabouts``)."""
        core = {i for i in item_ids if i.startswith(CORE_PREFIX)}
        held: set[str] = set()
        if core:
            items = {item for group in core_notes().get_all_items().values() for item in group}
            held = {i for i in core if i[len(CORE_PREFIX) :] in items}
        notes = [i for i in item_ids if i not in core]
        return held | set(notes_store().notes_by_ids(notes)) if notes else held

    def _survivor(self, note_id: str) -> str:
        """The note holding a merged note's text now: merges are followed while the
        survivor was itself merged since."""
        for _ in range(_FOLLOW_LIMIT):
            if notes_store().note(note_id) is not None:
                return note_id
            archived = archive_manager().find_line(note_id)
            merged = _MERGED_INTO.match(archived.reason) if archived else None
            if merged is None:
                return note_id
            note_id = merged.group(1)
        return note_id

    def left_out(self, query: str, item_id: str) -> str:
        if item_id.startswith(CORE_PREFIX):
            return ""  # injected on every message while core.md holds it
        note = notes_store().note(item_id)
        if note is None:
            return ""
        score = self.score(query, item_id)
        if score is None:
            return "it has no embedding the agent can search"
        threshold = settings.QQ_CITE_THRESHOLD
        if score < threshold:
            return f"scores {score:.2f}, below the citation threshold {threshold}"
        importance = effective_importance(note.to_document(), utcnow_naive())
        if importance < settings.QQ_MIN_RETRIEVAL_IMPORTANCE:
            return (
                f"its effective importance {importance:.2f} is below "
                f"{settings.QQ_MIN_RETRIEVAL_IMPORTANCE}"
            )
        return ""

    def unsearchable(self, item_id: str) -> str:
        """A note stored without a vector (the agent's embedding failed) is found by no
        search; a core note needs none (injected on every message)."""
        if item_id.startswith(CORE_PREFIX):
            return ""
        note = notes_store().note(item_id)
        if note is None or note.embedding:
            return ""
        return (
            "this note has no vector yet, so no search can recall it: pin it once the "
            "re-embedding job (Jobs page) has given it one"
        )

    def score(self, query: str, item_id: str) -> float | None:
        note = notes_store().note(item_id)
        if note is None or not note.embedding:
            return None
        vector = np.asarray(query_vector(embedder(), query), dtype=np.float64)
        stored = np.asarray(note.embedding, dtype=np.float64)
        if vector.shape != stored.shape:
            return None
        norm = float(np.linalg.norm(vector) * np.linalg.norm(stored))
        return round(float(vector @ stored) / norm, 4) if norm else None

    def item_url(self, item_id: str) -> str:
        if item_id.startswith(CORE_PREFIX):
            return reverse("memory_app:core")
        try:
            return reverse("memory_app:note_detail", args=[item_id])
        except NoReverseMatch:  # an id the URL cannot carry
            return ""


def notes_recall() -> NotesRecall:
    return NotesRecall()
