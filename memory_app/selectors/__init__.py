"""Reads over the memory stores, shaped for pages and the API (views, API functions
and tasks call these; nothing here writes)."""

from memory_app.selectors.archive import (
    ArchiveView,
    RestorePreview,
    archive_browse,
    archive_restore_preview,
)
from memory_app.selectors.core import (
    CoreView,
    content_hash,
    core_view,
    promotion_candidates,
)
from memory_app.selectors.notes import (
    NoteDetail,
    SearchOutcome,
    flatten_fields,
    note_detail,
    note_get,
    notes_count,
    notes_list,
    notes_search,
    source_summary,
)
from memory_app.selectors.overview import (
    EmbedderStatus,
    ImportanceHistogram,
    MemoryInsights,
    MemoryOverview,
    embedder_status,
    importance_histogram,
    memory_insights,
    memory_overview,
)
from memory_app.selectors.retrieval import RetrievalPreview, retrieval_preview
from memory_app.selectors.review import (
    Calibration,
    MergeSuggestion,
    ReviewItem,
    latest_scan,
    review_calibration,
    review_last_decided,
    review_llm_text,
    review_next,
    review_pending_count,
    word_diff,
)

__all__ = [
    "ArchiveView",
    "Calibration",
    "CoreView",
    "EmbedderStatus",
    "ImportanceHistogram",
    "MemoryInsights",
    "MemoryOverview",
    "MergeSuggestion",
    "NoteDetail",
    "RestorePreview",
    "RetrievalPreview",
    "ReviewItem",
    "SearchOutcome",
    "archive_browse",
    "archive_restore_preview",
    "content_hash",
    "core_view",
    "embedder_status",
    "flatten_fields",
    "importance_histogram",
    "latest_scan",
    "memory_insights",
    "memory_overview",
    "note_detail",
    "note_get",
    "notes_count",
    "notes_list",
    "notes_search",
    "promotion_candidates",
    "retrieval_preview",
    "review_calibration",
    "review_last_decided",
    "review_llm_text",
    "review_next",
    "review_pending_count",
    "source_summary",
    "word_diff",
]
