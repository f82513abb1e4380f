"""NoteDeduplicator: the seed API for near-duplicates over the notes collection.

``find_similar`` groups notes by embedding dimension and runs the blocked numpy search of
``dedup_math`` in each group: vectors of different dimensions are never compared.
``apply_merge`` writes the contract's simple merge in a crash-safe order (primary updated,
idempotently; secondary archived; secondary deleted): a crash after any step loses
nothing, and running the merge again completes it without doing anything twice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import requests
from pymongo.errors import PyMongoError

from .dedup_math import MergePlan, choose_primary, plan_merge, similar_pairs
from .documents import utcnow_naive
from .errors import NoteNotFound, StoreUnavailable
from .importance import ScoredNote

if TYPE_CHECKING:
    from .archive import ArchiveManager
    from .embeddings import Embedder
    from .mongo_store import MongoNotesStore

DEDUP_THRESHOLD = 0.85
MAX_WORKING_NOTES = 100
MERGED_IDS_FIELD = "qqweb_merged_ids"  # secondaries already folded into this note


@dataclass(frozen=True)
class DuplicatePair:
    note_a: dict[str, Any]
    note_b: dict[str, Any]
    similarity: float

    @property
    def ids(self) -> tuple[str, str]:
        return str(self.note_a["note_id"]), str(self.note_b["note_id"])


@dataclass
class ConsolidationReport:
    pairs_found: int = 0
    consolidated: int = 0
    errors: list[str] = field(default_factory=list)


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
        query: dict[str, Any] = {"embedding.0": {"$exists": True}}
        if section:
            query["section"] = section
        groups: dict[int, tuple[list[str], list[list[float]]]] = {}
        try:
            for doc in self.store.collection.find(query, {"_id": 0, "note_id": 1, "embedding": 1}):
                ids, rows = groups.setdefault(len(doc["embedding"]), ([], []))
                ids.append(str(doc["note_id"]))
                rows.append(doc["embedding"])
        except PyMongoError as e:
            raise StoreUnavailable("mongodb", str(e)) from e
        return {
            dim: (ids, np.asarray(rows, dtype=np.float32)) for dim, (ids, rows) in groups.items()
        }

    def find_similar_ids(
        self, threshold: float | None = None, section: str | None = None
    ) -> list[tuple[str, str, float]]:
        limit = self.threshold if threshold is None else threshold
        found: list[tuple[str, str, float]] = []
        for ids, matrix in self._load_vectors(section).values():
            i, j, sims = similar_pairs(matrix, limit)
            found.extend((ids[a], ids[b], float(s)) for a, b, s in zip(i, j, sims, strict=True))
        found.sort(key=lambda row: -row[2])
        return found

    def find_similar(
        self, threshold: float = DEDUP_THRESHOLD, section: str | None = None
    ) -> list[DuplicatePair]:
        rows = self.find_similar_ids(threshold, section)
        wanted = {i for a, b, _ in rows for i in (a, b)}
        docs = {
            d["note_id"]: d
            for d in self.store.collection.find(
                {"note_id": {"$in": list(wanted)}}, {"_id": 0, "embedding": 0}
            )
        }
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
        note_a: dict[str, Any],
        note_b: dict[str, Any],
        similarity: float,
        content: str | None = None,
        primary_id: str | None = None,
    ) -> MergePlan:
        if primary_id is not None:
            primary, secondary = (
                (note_a, note_b) if note_a["note_id"] == primary_id else (note_b, note_a)
            )
        else:
            primary, secondary = choose_primary(note_a, note_b)
        return plan_merge(primary, secondary, similarity, content)

    def consolidate(
        self,
        note_a: dict[str, Any],
        note_b: dict[str, Any],
        use_llm: bool = False,
        model: str | None = None,
    ) -> ScoredNote:
        """The merged note (not written): the simple merge, or an LLM's merged text when
        asked for and an endpoint is configured (falling back to the simple merge)."""
        primary, secondary = choose_primary(note_a, note_b)
        content = self.llm_merge_text(primary, secondary, model) if use_llm else None
        plan = plan_merge(primary, secondary, 1.0, content)
        merged = {
            **primary,
            **plan.set_fields,
            "access_count": int(primary.get("access_count") or 0) + plan.inc_access,
        }
        return ScoredNote.from_document(merged)

    def llm_merge_text(
        self, primary: dict[str, Any], secondary: dict[str, Any], model: str | None = None
    ) -> str | None:
        if not self.llm_url:
            return None
        prompt = (
            "Merge these two notes about the same fact into one short note. "
            "Keep every specific detail. Answer with the merged note only.\n\n"
            f"1. {primary.get('content', '')}\n2. {secondary.get('content', '')}"
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

    def apply_merge(self, plan: MergePlan, archive: ArchiveManager) -> bool:
        """Write a merge in crash-safe order; idempotent. Returns False when either note is
        gone and the merge was not already done."""
        store = self.store
        secondary = store.get_full_note(plan.secondary_id)
        primary = store.get_full_note(plan.primary_id)
        if primary is None:
            raise NoteNotFound(plan.primary_id)
        already = plan.secondary_id in (primary.get(MERGED_IDS_FIELD) or [])
        if secondary is None:
            return already
        if not already:
            fields = dict(plan.set_fields)
            if plan.content_changed and self.embedder is not None:
                fields["embedding"] = [
                    float(x) for x in self.embedder.embed([fields["content"]])[0]
                ]
            fields["updated_at"] = utcnow_naive()
            update: dict[str, Any] = {
                "$set": fields,
                "$inc": {"access_count": plan.inc_access},
                "$addToSet": {MERGED_IDS_FIELD: plan.secondary_id},
            }
            if plan.pushed_source:
                update["$push"] = {"source_history": plan.pushed_source}
            try:
                store.collection.update_one(
                    {"note_id": plan.primary_id, MERGED_IDS_FIELD: {"$ne": plan.secondary_id}},
                    update,
                )
            except PyMongoError as e:
                raise StoreUnavailable("mongodb", str(e)) from e
        archive.archive_document(secondary, plan.archive_reason)
        return True

    def run_consolidation_pass(
        self, archive_manager: ArchiveManager, use_llm: bool = False, model: str | None = None
    ) -> ConsolidationReport:
        """The agent's pass: every pair above the threshold merged into its primary, each
        note merged at most once per pass."""
        report = ConsolidationReport()
        pairs = self.find_similar(self.threshold)
        report.pairs_found = len(pairs)
        touched: set[str] = set()
        for pair in pairs:
            if touched & set(pair.ids):
                continue
            try:
                primary, secondary = choose_primary(pair.note_a, pair.note_b)
                content = self.llm_merge_text(primary, secondary, model) if use_llm else None
                plan = plan_merge(primary, secondary, pair.similarity, content)
                if self.apply_merge(plan, archive_manager):
                    report.consolidated += 1
                touched.update(pair.ids)
            except (StoreUnavailable, NoteNotFound, OSError) as e:
                report.errors.append(f"{pair.ids[0]} + {pair.ids[1]}: {e}")
        return report

    def should_consolidate(self) -> bool:
        return self.store.count() > self.max_working_notes
