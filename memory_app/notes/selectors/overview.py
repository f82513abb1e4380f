"""Reads for the Overview: counts from every store, the embedder check, the pictures."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, TypeVar
from urllib.parse import urlencode

from django.conf import settings

from memory_app.notes.charts import Chart, histogram_chart
from memory_app.notes.lib.constants import CORE_CATEGORIES, SECTIONS
from memory_app.notes.lib.documents import utcnow_naive
from memory_app.notes.lib.replica.aggregates import read_pictures, section_counts
from memory_app.notes.lib.replica.read_model import ReadModel
from memory_app.notes.stores import archive_manager, core_notes, notes_store, working_notes
from qqweb.lib.clients import embedder
from qqweb.lib.errors import QQError, StoreUnavailable

T = TypeVar("T")
# How long the Overview and the histogram wait for the read model of a process that just
# started before answering "the pictures are loading": opening a saved snapshot takes
# about a second, so a restarted process usually draws them at once, and a process that
# must read every note from MongoDB never holds a request for long.
READ_MODEL_WAIT_S = 1.0


@dataclass
class MemoryOverview:
    notes_total: int | None = None
    notes_by_section: list[tuple[str, int]] = field(default_factory=list)
    archive: dict[str, Any] | None = None
    core_by_category: list[tuple[str, int]] = field(default_factory=list)
    working_by_section: list[tuple[str, int]] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)
    # The read model of a process that just started is still loading: notes_total is
    # then the collection's metadata count and notes_by_section is empty.
    loading: bool = False

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


class ReadModelLoading(StoreUnavailable):
    """The read model of a process that just started is still loading."""

    def __init__(self) -> None:
        super().__init__("the read model", "it is still loading; try again in a few seconds")


def _read(question: Callable[[ReadModel], T]) -> T | None:
    """``question`` answered from the read model (the vector index's columns), or None
    while it is loading (a process that just started loads it in the background; it is
    waited for at most ``READ_MODEL_WAIT_S``, and a request never scans the
    collection instead). MongoDB is pinged first: with it down the page says so rather
    than showing what the read model last saw."""
    store = notes_store()
    store.ping()  # raises StoreUnavailable when MongoDB is down
    answer = store.vector_index.read(question)
    if answer is None:
        answer = store.vector_index.read(question, wait=READ_MODEL_WAIT_S)
    return answer


def memory_overview() -> MemoryOverview:
    """Counts from every memory store; a store that fails is reported, the rest shown.
    Notes per section come from the read model, no query; while it loads, the total is
    the count the load began with (else the collection's metadata count) and ``loading``
    is set."""
    overview = MemoryOverview()
    try:
        by_section = _read(section_counts)
        if by_section is None:  # the load's count if it has one: a count scans on the daemon
            counted = notes_store().vector_index.counted
            overview.notes_total = counted if counted is not None else notes_store().count()
            overview.loading = True
        else:
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
    except (OSError, QQError) as e:
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
    would_archive_query: str  # the notes list's filter of those notes
    by_source_type: list[tuple[str, int]]
    top_files: list[tuple[str, int]]
    per_week: Chart
    decay_days: tuple[int, ...] = (7, 30, 90)


def memory_insights(
    *, archive_threshold: float | None = None, bins: int = 10, weeks: int = 26
) -> MemoryInsights | None:
    """The Overview's pictures, from the read model's columns (``replica/aggregates.py``, no
    query): the stored-importance histogram with the effective importance now and in 7,
    30 and 90 days over it, how many notes the next archival pass would take at
    ``archive_threshold``, source breakdowns and notes per week. None while the read
    model loads (the page says the pictures are loading)."""
    threshold = settings.QQ_ARCHIVE_THRESHOLD if archive_threshold is None else archive_threshold
    now = utcnow_naive().replace(microsecond=0)  # whole seconds: the weeks' links say them
    pictures = _read(
        lambda model: read_pictures(model, now=now, threshold=threshold, bins=bins, weeks=weeks)
    )
    if pictures is None:
        return None
    labels = [f"{i / bins:.1f}" for i in range(bins)]
    histogram = histogram_chart(
        labels,
        pictures.stored,
        {("now" if d == 0 else f"{d} days"): counts for d, counts in pictures.effective.items()},
        queries=_importance_queries(bins),
    )
    week_labels = [(now - timedelta(weeks=w)).strftime("%m-%d") for w in range(weeks - 1, -1, -1)]
    return MemoryInsights(
        total=pictures.total,
        histogram=histogram,
        archive_threshold=threshold,
        would_archive=pictures.would_archive,
        would_archive_query=urlencode({"effective_below": threshold}),
        by_source_type=pictures.by_source_type,
        top_files=pictures.top_files,
        per_week=histogram_chart(week_labels, pictures.per_week, queries=_week_queries(now, weeks)),
    )


def _importance_queries(bins: int) -> list[str]:
    """The notes list's filter of each histogram bar: [i / bins, (i + 1) / bins), the last
    bar up to 1 included (as ``importance_histogram`` counts)."""
    queries = []
    for i in range(bins):
        low, high = round(i / bins, 6), round((i + 1) / bins, 6)
        upper = {"max_importance": 1} if i == bins - 1 else {"importance_below": high}
        queries.append(urlencode({"min_importance": low, **upper}))
    return queries


def _week_queries(now: datetime, weeks: int) -> list[str]:
    """The notes list's filter of each week's bar, oldest first: created in the 7 days up
    to ``now`` minus that many weeks, the start left out (as ``weeks_created`` counts)."""
    stamp = "%Y-%m-%dT%H:%M:%S"
    queries = []
    for w in range(weeks - 1, -1, -1):
        end = now - timedelta(weeks=w)
        start = end - timedelta(weeks=1)
        dates = {"created_after": start.strftime(stamp), "created_until": end.strftime(stamp)}
        queries.append(urlencode(dates))
    return queries


@dataclass(frozen=True)
class ImportanceHistogram:
    edges: list[float]
    counts: list[int]


def importance_histogram(*, bins: int = 10, section: str | None = None) -> ImportanceHistogram:
    """Stored importance in ``bins`` equal buckets over [0, 1], counted from the read
    model (what the database's ``$bucket`` counts, without reading every note): the one
    histogram of stored importance (the API's and the Overview's). Raises
    :class:`ReadModelLoading` (a 503) while it loads."""
    counts = _read(lambda model: model.importance_histogram(bins=bins, section=section))
    if counts is None:
        raise ReadModelLoading()
    return ImportanceHistogram([round(i / len(counts), 4) for i in range(len(counts) + 1)], counts)
