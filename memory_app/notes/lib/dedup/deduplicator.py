"""NoteDeduplicator: the seed API for near-duplicates over the notes collection.

``find_similar`` groups notes by embedding dimension and runs the blocked numpy search of
``dedup_math`` in each group: vectors of different dimensions are never compared.
``apply_merge`` writes the contract's simple merge in a crash-safe order (primary updated,
idempotently; secondary archived; secondary deleted): a crash after any step loses
nothing, and running the merge again completes it without doing anything twice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from memory_app.notes.lib.dedup.maths import (
    MergePlan,
    choose_primary,
    merged_note,
    plan_merge,
    similar_pairs_tiled,
)
from memory_app.notes.lib.domain import Note
from memory_app.notes.lib.errors import NoteNotFound
from memory_app.notes.lib.importance import ScoredNote
from memory_app.notes.lib.mongo.writes import merged_ids
from qqweb.lib.embeddings import embed_keeping_dimension, require_dimension
from qqweb.lib.errors import DimensionMismatch, StoreUnavailable

if TYPE_CHECKING:
    from memory_app.notes.lib.archive import ArchiveManager
    from memory_app.notes.lib.mongo_store import MongoNotesStore
    from qqweb.lib.embeddings import Embedder

DEDUP_THRESHOLD = 0.85
MAX_WORKING_NOTES = 100


@dataclass(frozen=True)
class DuplicatePair:
    """Two notes whose vectors are at least the threshold alike (read without them)."""

    note_a: Note
    note_b: Note
    similarity: float

    @property
    def ids(self) -> tuple[str, str]:
        return self.note_a.note_id, self.note_b.note_id


@dataclass
class ConsolidationReport:
    pairs_found: int = 0
    consolidated: int = 0
    errors: list[str] = field(default_factory=list)
    sample: list[tuple[str, str, float]] = field(default_factory=list)


class NoteDeduplicator:
    def __init__(
        self,
        mongo_store: MongoNotesStore,
        embedding_client: Embedder | None = None,
        *,
        threshold: float = DEDUP_THRESHOLD,
        max_working_notes: int = MAX_WORKING_NOTES,
        llm_url: str = "",
        llm_model: str = "",
        llm_api_key: str = "",
    ) -> None:
        self.store = mongo_store
        self.embedder = embedding_client
        self.threshold = threshold
        self.max_working_notes = max_working_notes
        self.llm_url = llm_url.rstrip("/")
        self.llm_model = llm_model
        self.llm_api_key = llm_api_key

    # --- finding -------------------------------------------------------------------------

    def _load_vectors(self, section: str | None) -> dict[int, tuple[list[str], np.ndarray]]:
        return self.store.vectors_by_dimension(section)

    def find_similar_ids(
        self, threshold: float | None = None, section: str | None = None
    ) -> list[tuple[str, str, float]]:
        limit = self.threshold if threshold is None else threshold
        found: list[tuple[str, str, float]] = []
        for ids, matrix in self._load_vectors(section).values():
            i, j, sims = similar_pairs_tiled(matrix, limit)
            found.extend((ids[a], ids[b], float(s)) for a, b, s in zip(i, j, sims, strict=True))
        found.sort(key=lambda row: -row[2])
        return found

    def find_similar(
        self, threshold: float = DEDUP_THRESHOLD, section: str | None = None
    ) -> list[DuplicatePair]:
        rows = self.find_similar_ids(threshold, section)
        wanted = {i for a, b, _ in rows for i in (a, b)}
        docs = self.store.notes_by_ids(wanted)
        return [DuplicatePair(docs[a], docs[b], s) for a, b, s in rows if a in docs and b in docs]

    @staticmethod
    def find_exact_duplicates(notes_content: list[str]) -> list[tuple[str, str]]:
        """(first, duplicate) pairs of texts equal after trimming, case and spacing."""
        seen: dict[str, str] = {}
        pairs = []
        for text in notes_content:
            key = " ".join(text.split()).lower()
            if key in seen:
                pairs.append((seen[key], text))
            else:
                seen[key] = text
        return pairs

    # --- merging ----------------------------------------------------------------------------

    def plan(
        self,
        note_a: Note,
        note_b: Note,
        similarity: float,
        content: str | None = None,
        primary_id: str | None = None,
    ) -> MergePlan:
        primary, secondary = self.ordered(note_a, note_b, primary_id)
        return plan_merge(primary, secondary, similarity, content)

    @staticmethod
    def ordered(note_a: Note, note_b: Note, primary_id: str | None = None) -> tuple[Note, Note]:
        """(primary, secondary): the one named, or the agent's choice."""
        if primary_id is not None:
            return (note_a, note_b) if note_a.note_id == primary_id else (note_b, note_a)
        return choose_primary(note_a, note_b)

    def consolidate(
        self,
        note_a: Note,
        note_b: Note,
        use_llm: bool = False,
        model: str | None = None,
    ) -> ScoredNote:
        """The merged note (not written): the simple merge, or an LLM's merged text when
        asked for and an endpoint is configured (falling back to the simple merge)."""
        primary, secondary = choose_primary(note_a, note_b)
        content = self.llm_merge_text(primary, secondary, model) if use_llm else None
        plan = plan_merge(primary, secondary, 1.0, content)
        return ScoredNote.from_document(merged_note(primary, plan).to_document())

    def llm_merge_text(
        self, primary: Note, secondary: Note, model: str | None = None
    ) -> str | None:
        if not self.llm_url:
            return None
        import requests  # here, not at start-up: 0.3 s a web process need not pay

        prompt = (
            "Merge these two notes about the same fact into one short note. "
            "Keep every specific detail. Answer with the merged note only.\n\n"
            f"1. {primary.content}\n2. {secondary.content}"
        )
        headers = {"Authorization": f"Bearer {self.llm_api_key}"} if self.llm_api_key else {}
        try:
            response = requests.post(
                f"{self.llm_url}/chat/completions",
                headers=headers,
                timeout=60,
                json={
                    "model": model or self.llm_model,
                    "messages": [{"role": "user", "content": prompt}],
                    "temperature": 0,
                },
            )
            response.raise_for_status()
            text = response.json()["choices"][0]["message"]["content"].strip()
        except (requests.RequestException, KeyError, IndexError, ValueError):
            return None  # the simple merge is used instead
        return text or None

    def check_reembed(self, plan: MergePlan, primary: Note) -> None:
        """Refuse (``EmbeddingDimensionConflict``), before anything is written, a merge
        whose new text the configured model would embed in another dimension than the
        primary's vector (or the collection's, for a primary with none)."""
        if plan.content_changed and self.embedder is not None:
            require_dimension(
                self.embedder,
                self.store.reembed_dimension(primary),
                what=f"note {plan.primary_id!r}",
            )

    def apply_merge(self, plan: MergePlan, archive: ArchiveManager) -> bool:
        """Write a merge in crash-safe order; idempotent. Returns False when either note is
        gone and the merge was not already done."""
        store = self.store
        secondary = store.note(plan.secondary_id)
        primary = store.note(plan.primary_id)
        if primary is None:
            raise NoteNotFound(plan.primary_id)
        already = plan.secondary_id in merged_ids(primary)
        if secondary is None:
            return already
        if not already:
            fields: dict[str, object] = dict(plan.set_fields)
            if plan.content is not None and self.embedder is not None:
                fields["embedding"] = embed_keeping_dimension(
                    self.embedder,
                    plan.content,
                    store.reembed_dimension(primary),
                    what=f"note {plan.primary_id!r}",
                )
            store.merge_into_primary(
                plan.primary_id,
                plan.secondary_id,
                fields,
                inc_access=plan.inc_access,
                pushed_source=plan.pushed_source,
            )
        archive.archive_document(secondary.to_document(), plan.archive_reason)
        return True

    def consolidation_walk(
        self,
        merge: Callable[[str, str, float], bool],
        *,
        threshold: float | None = None,
        dry_run: bool = False,
        tolerate: tuple[type[Exception], ...] = (NoteNotFound,),
        progress: Callable[[int, int], None] | None = None,
    ) -> ConsolidationReport:
        """The one consolidation pass (the seed's ``run_consolidation_pass`` and the
        audited job both run it): every pair above the threshold, most similar first; a
        note merged once in this pass is not merged again. ``merge(a, b, similarity)``
        does one merge and says whether it happened; the errors in ``tolerate`` are
        recorded and the pass goes on."""
        pairs = self.find_similar_ids(self.threshold if threshold is None else threshold)
        report = ConsolidationReport(pairs_found=len(pairs), sample=pairs[:10])
        touched: set[str] = set()
        for index, (a, b, similarity) in enumerate(pairs, start=1):
            if dry_run or a in touched or b in touched:
                continue
            try:
                if merge(a, b, similarity):
                    report.consolidated += 1
                touched.update((a, b))
            except tolerate as e:
                report.errors.append(f"{a} + {b}: {e}")
            if progress is not None and index % 20 == 0:
                progress(index, len(pairs))
        return report

    def run_consolidation_pass(
        self, archive_manager: ArchiveManager, use_llm: bool = False, model: str | None = None
    ) -> ConsolidationReport:
        """The agent's pass: every pair above the threshold merged into its primary, each
        note merged at most once per pass."""

        def merge(a: str, b: str, similarity: float) -> bool:
            note_a, note_b = self.store.note(a), self.store.note(b)
            if note_a is None or note_b is None:
                return False
            primary, secondary = choose_primary(note_a, note_b)
            content = self.llm_merge_text(primary, secondary, model) if use_llm else None
            plan = plan_merge(primary, secondary, similarity, content)
            return self.apply_merge(plan, archive_manager)

        return self.consolidation_walk(
            merge, tolerate=(StoreUnavailable, NoteNotFound, DimensionMismatch, OSError)
        )

    def should_consolidate(self) -> bool:
        return self.store.count() > self.max_working_notes
