"""Reads for the Overview: counts from every store, the embedder check, the pictures."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import numpy as np
from django.conf import settings

from memory_app.charts import Chart, histogram_chart
from memory_app.memory import MemoryLibraryError, StoreUnavailable
from memory_app.memory.constants import CORE_CATEGORIES, SECTIONS
from memory_app.memory.documents import effective_importance, utcnow_naive
from memory_app.stores import archive_manager, core_notes, notes_store, working_notes
from qqweb.clients import embedder


@dataclass
class MemoryOverview:
    notes_total: int | None = None
    notes_by_section: list[tuple[str, int]] = field(default_factory=list)
    archive: dict[str, Any] | None = None
    core_by_category: list[tuple[str, int]] = field(default_factory=list)
    working_by_section: list[tuple[str, int]] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def largest_section_count(self) -> int:
        return max((n for _, n in self.notes_by_section), default=0)


def _ordered_counts(counts: dict[Any, int], names: tuple[str, ...]) -> list[tuple[str, int]]:
    rows = [(name, counts.get(name, 0)) for name in names]
    extra = sorted(
        ((str(k) if k else "(no section)", n) for k, n in counts.items() if k not in names),
        key=lambda row: -row[1],
    )
    return rows + extra


def memory_overview() -> MemoryOverview:
    """Counts from every memory store; a store that fails is reported, the rest shown."""
    overview = MemoryOverview()
    try:
        by_section = notes_store().count_by_section()
        overview.notes_by_section = _ordered_counts(by_section, SECTIONS)
        overview.notes_total = sum(by_section.values())
    except StoreUnavailable as e:
        overview.errors["mongodb"] = e.message
    try:
        overview.archive = archive_manager().get_archive_stats()
        core = core_notes().get_all_items()
        overview.core_by_category = _ordered_counts(
            {k: len(v) for k, v in core.items()}, CORE_CATEGORIES
        )
        working = working_notes().get_all_items()
        overview.working_by_section = _ordered_counts(
            {k: len(v) for k, v in working.items()}, SECTIONS
        )
    except (OSError, MemoryLibraryError) as e:
        overview.errors["memory_dir"] = str(e)
    return overview


@dataclass(frozen=True)
class EmbedderStatus:
    model: str
    dimension: int | None
    stored: dict[int, int]
    ok: bool
    message: str


def embedder_status() -> EmbedderStatus:
    """Does the configured embedder produce vectors the stored notes can be compared with?
    Says plainly when it does not (the agent would silently truncate)."""
    model = embedder()
    stored = {d: n for d, n in notes_store().stored_dimensions().items() if d}
    try:
        dim: int | None = model.dimension
    except StoreUnavailable as e:
        return EmbedderStatus(model.model_name, None, stored, False, e.message)
    if not stored:
        return EmbedderStatus(model.model_name, dim, stored, True, "no stored vectors yet")
    if dim in stored:
        others = {d: n for d, n in stored.items() if d != dim}
        message = (
            "matches the stored vectors"
            if not others
            else (
                f"matches {stored[dim]} notes; {sum(others.values())} notes have vectors of "
                f"another dimension ({', '.join(map(str, others))}) and are left out of search"
            )
        )
        return EmbedderStatus(model.model_name, dim, stored, True, message)
    main = max(stored, key=lambda d: stored[d])
    return EmbedderStatus(
        model.model_name,
        dim,
        stored,
        False,
        f"the embedding model {model.model_name!r} makes {dim}-dimensional vectors but the "
        f"stored notes have {main} dimensions: configure the model the agent uses "
        f"(QQ_EMBEDDING_BACKEND / QQ_EMBEDDING_MODEL / TEI_URL) or re-embed the notes",
    )


@dataclass
class MemoryInsights:
    total: int
    histogram: Chart
    archive_threshold: float
    would_archive: int
    by_source_type: list[tuple[str, int]]
    top_files: list[tuple[str, int]]
    per_week: Chart
    decay_days: tuple[int, ...] = (7, 30, 90)


_INSIGHT_FIELDS = {
    "_id": 0,
    "importance": 1,
    "access_count": 1,
    "created_at": 1,
    "last_accessed": 1,
    "decay_rate": 1,
    "source.source_type": 1,
    "source.file_path": 1,
}


def memory_insights(
    *, archive_threshold: float | None = None, bins: int = 10, weeks: int = 26
) -> MemoryInsights:
    """One pass over the notes (no embeddings): the importance histogram now with the
    effective importance in 7, 30 and 90 days over it, how many notes the next archival
    pass would take at ``archive_threshold``, source breakdowns and notes per week."""
    threshold = settings.QQ_ARCHIVE_THRESHOLD if archive_threshold is None else archive_threshold
    now = utcnow_naive()
    stored: list[float] = []
    effective: dict[int, list[float]] = {d: [] for d in (0, 7, 30, 90)}
    types: Counter[str] = Counter()
    files: Counter[str] = Counter()
    created_weeks: Counter[int] = Counter()
    for doc in notes_store().insight_rows():
        importance = doc.get("importance")
        stored.append(float(importance) if isinstance(importance, int | float) else 0.5)
        for days, values in effective.items():
            values.append(effective_importance(doc, now + timedelta(days=days)))
        source = doc.get("source") or {}
        types[str(source.get("source_type") or "(no source)")] += 1
        if source.get("file_path"):
            files[str(source["file_path"])] += 1
        created = doc.get("created_at")
        if created is not None:
            created_weeks[(now - created).days // 7] += 1

    def bucket(values: list[float]) -> list[int]:
        counts, _ = np.histogram(np.clip(values, 0, 1), bins=bins, range=(0, 1))
        return [int(c) for c in counts]

    labels = [f"{i / bins:.1f}" for i in range(bins)]
    histogram = histogram_chart(
        labels,
        importance_histogram(bins=bins).counts,
        {
            "now": bucket(effective[0]),
            "7 days": bucket(effective[7]),
            "30 days": bucket(effective[30]),
            "90 days": bucket(effective[90]),
        },
    )
    week_counts = [created_weeks.get(w, 0) for w in range(weeks - 1, -1, -1)]
    week_labels = [(now - timedelta(weeks=w)).strftime("%m-%d") for w in range(weeks - 1, -1, -1)]
    return MemoryInsights(
        total=len(stored),
        histogram=histogram,
        archive_threshold=threshold,
        would_archive=sum(1 for v in effective[0] if v < threshold),
        by_source_type=types.most_common(),
        top_files=files.most_common(10),
        per_week=histogram_chart(week_labels, week_counts),
    )


@dataclass(frozen=True)
class ImportanceHistogram:
    edges: list[float]
    counts: list[int]


def importance_histogram(*, bins: int = 10, section: str | None = None) -> ImportanceHistogram:
    """Stored importance in ``bins`` equal buckets over [0, 1], counted by the database:
    the one histogram of stored importance (the API's and the Overview's)."""
    counts = notes_store().importance_histogram(bins=bins, section=section)
    return ImportanceHistogram([round(i / len(counts), 4) for i in range(len(counts) + 1)], counts)
