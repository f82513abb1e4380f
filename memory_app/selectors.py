"""Reads over the memory stores, shaped for pages and the API."""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import numpy as np
from pymongo.errors import PyMongoError

from memory_app.charts import Chart, histogram_chart
from memory_app.memory import InvalidNote, MemoryLibraryError, NoteNotFound, StoreUnavailable
from memory_app.memory.archive import ArchivedNote, ArchiveLine, new_note_id, reason_kind
from memory_app.memory.constants import CORE_CATEGORIES, SECTIONS
from memory_app.memory.documents import effective_importance, utcnow_naive
from memory_app.memory.listing import NoteFilter, NotesPage
from memory_app.models import AuditEvent, PromotionVerdict
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


# --- notes: list, detail, search ------------------------------------------------------------


def notes_list(
    *,
    flt: NoteFilter,
    sort: str = "updated",
    direction: str = "desc",
    cursor: str | None = None,
    limit: int = 50,
) -> NotesPage:
    return notes_store().list_notes(flt, sort=sort, direction=direction, cursor=cursor, limit=limit)


def note_get(*, note_id: str) -> dict[str, Any]:
    doc = notes_store().get_full_note(note_id)
    if doc is None:
        raise NoteNotFound(note_id)
    doc["effective_importance"] = effective_importance(doc, utcnow_naive())
    return doc


@dataclass
class NoteDetail:
    note: dict[str, Any]
    curve: list[tuple[int, float]]
    similar: list[dict[str, Any]]
    similar_error: str
    suggested_category: str
    history: list[AuditEvent]

    @property
    def dimension(self) -> int:
        return len(self.note.get("embedding") or [])

    @property
    def provenance_timeline(self) -> list[dict[str, str]]:
        """``source_history`` as rows to show, whatever shape each entry has."""
        return [
            source_summary(s) for s in self.note.get("source_history") or [] if isinstance(s, dict)
        ]

    @property
    def source_fields(self) -> list[tuple[str, str]]:
        """The latest ``source`` as (key, text) rows, nested dicts flattened, empties left out."""
        source = self.note.get("source")
        return flatten_fields(source) if isinstance(source, dict) else []

    @property
    def curve_points(self) -> str:
        """SVG polyline points of the curve in a 300 x 100 box (day 0..90, value 0..1)."""
        return " ".join(
            f"{day / 90 * 300:.1f},{100 - value * 100:.1f}" for day, value in self.curve
        )


def flatten_fields(data: dict[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            rows.extend(flatten_fields(value, f"{name}."))
        elif value not in (None, "", [], {}):
            rows.append((name, str(value)))
    return rows


def source_summary(source: dict[str, Any]) -> dict[str, str]:
    """One provenance entry of either shape (provenance record or file analyzer record),
    never assuming a key exists."""
    when = source.get("timestamp") or source.get("analyzed_at") or ""
    where = source.get("file_path") or ""
    if not where and source.get("session_id"):
        where = f"session {source['session_id']}"
    line = ""
    if source.get("line_start"):
        line = f"lines {source.get('line_start')}-{source.get('line_end') or source['line_start']}"
    return {
        "when": str(when),
        "kind": str(source.get("source_type") or "unknown"),
        "where": str(where or source.get("source_id") or ""),
        "lines": line,
    }


def note_detail(*, note_id: str) -> NoteDetail:
    """Everything the note page shows: every field, the effective-importance curve over
    the next 90 days, similar notes, the suggested core category, its audit history."""
    note = note_get(note_id=note_id)
    now = utcnow_naive()
    curve = [
        (day, effective_importance(note, now + timedelta(days=day))) for day in range(0, 91, 5)
    ]
    similar: list[dict[str, Any]] = []
    error = ""
    if note.get("embedding"):
        try:
            hits = notes_store().search_similar(note["embedding"], limit=6)
            similar = [h for h in hits if h["note_id"] != note_id][:5]
        except MemoryLibraryError as e:
            error = str(e)
    ok, category = core_notes().is_core_candidate(str(note.get("content", "")))
    history = list(AuditEvent.objects.filter(target_id=note_id)[:50])
    return NoteDetail(note, curve, similar, error, category if ok else "", history)


@dataclass
class SearchOutcome:
    results: list[dict[str, Any]]
    compared: int
    skipped_other_dimensions: dict[int, int]
    model: str


def notes_search(
    *, query: str, section: str | None = None, min_score: float | None = None, limit: int = 20
) -> SearchOutcome:
    """Embed the query with the configured embedder and search. A dimension the stored
    vectors do not have raises DimensionMismatch, with a plain message."""
    query = query.strip()
    if not query:
        raise InvalidNote("query", "type something to search for")
    if section is not None and section not in SECTIONS:
        raise InvalidNote("section", f"must be one of {', '.join(SECTIONS)}")
    model = embedder()
    vector = model.embed([query])[0]
    store = notes_store()
    result = store.vector_index.search(vector, limit=limit, section=section, min_score=min_score)
    scores = dict(result.hits)
    docs = {
        d["note_id"]: d
        for d in store.collection.find(
            {"note_id": {"$in": list(scores)}}, {"_id": 0, "embedding": 0}
        )
    }
    now = utcnow_naive()
    results = []
    for note_id, score in result.hits:
        if note_id in docs:
            doc = docs[note_id]
            doc["score"] = round(score, 4)
            doc["effective_importance"] = effective_importance(doc, now)
            results.append(doc)
    return SearchOutcome(
        results, result.compared, result.skipped_other_dimensions, model.model_name
    )


def audit_events(
    *, actor: str = "", action: str = "", target: str = "", limit: int = 100
) -> list[AuditEvent]:
    events = AuditEvent.objects.select_related("undo_of")
    if actor:
        events = events.filter(actor__icontains=actor)
    if action:
        events = events.filter(action=action)
    if target:
        events = events.filter(target_id__icontains=target)
    return list(events[: max(1, min(limit, 500))])


# --- archive ---------------------------------------------------------------------------------


@dataclass
class ArchiveView:
    entries: list[ArchivedNote]
    total: int
    by_reason: list[tuple[str, int]]
    by_section: list[tuple[str, int]]
    by_month: list[tuple[str, int]]
    bad_lines: list[ArchiveLine]
    restored: int


def archive_browse(
    *, query: str = "", include_restored: bool = False, limit: int = 100
) -> ArchiveView:
    """archive.jsonl newest first, searched by content or id, with its stats and the lines
    that could not be read."""
    manager = archive_manager()
    lines = manager.read_lines()
    notes = [ArchivedNote.from_line(line) for line in lines if line.entry is not None]
    reasons: Counter[str] = Counter(reason_kind(n.reason) for n in notes)
    sections: Counter[str] = Counter(n.section or "(no section)" for n in notes)
    months: Counter[str] = Counter(n.archived_at[:7] for n in notes if n.archived_at)
    needle = query.strip().lower()
    shown = [
        n
        for n in reversed(notes)
        if (include_restored or not n.restored)
        and (not needle or needle in n.content.lower() or needle == n.note_id.lower())
    ]
    return ArchiveView(
        entries=shown[: max(1, min(limit, 1000))],
        total=len(notes),
        by_reason=reasons.most_common(),
        by_section=sections.most_common(),
        by_month=sorted(months.items()),
        bad_lines=[ln for ln in lines if ln.entry is None],
        restored=sum(1 for n in notes if n.restored),
    )


@dataclass
class RestorePreview:
    archived: ArchivedNote
    conflict: bool
    suggested_id: str
    importance_after: float

    @property
    def source(self) -> dict[str, str] | None:
        return source_summary(self.archived.source) if self.archived.source else None


def archive_restore_preview(*, note_id: str, boost: float = 0.1) -> RestorePreview:
    archived = archive_manager().find_line(note_id)
    if archived is None:
        raise NoteNotFound(note_id)
    conflict = notes_store().get_note(note_id) is not None
    return RestorePreview(
        archived, conflict, new_note_id(), round(min(1.0, archived.importance + boost), 6)
    )


# --- core and working notes --------------------------------------------------------------------


@dataclass
class CoreView:
    core: dict[str, list[str]]
    working: dict[str, list[str]]
    candidates: list[dict[str, Any]]


def content_hash(content: str) -> str:
    return hashlib.sha256(" ".join(content.split()).lower().encode()).hexdigest()


def promotion_candidates(*, limit: int = 50) -> list[dict[str, Any]]:
    """Notes with importance >= QQ_CORE_THRESHOLD read at least 3 times, not in core.md
    and with no verdict on their current text; each with a suggested category."""
    from django.conf import settings

    store = notes_store()
    query = {"importance": {"$gte": settings.QQ_CORE_THRESHOLD}, "access_count": {"$gte": 3}}
    docs = (
        store.collection.find(query, {"_id": 0, "embedding": 0})
        .sort([("importance", -1), ("note_id", 1)])
        .limit(limit * 4)
    )
    core = core_notes()
    in_core = {
        " ".join(i.split()).lower() for items in core.get_all_items().values() for i in items
    }
    decided = set(PromotionVerdict.objects.values_list("note_id", "content_hash"))
    found = []
    for doc in docs:
        text = str(doc.get("content", ""))
        if (
            " ".join(text.split()).lower() in in_core
            or (doc["note_id"], content_hash(text)) in decided
        ):
            continue
        ok, category = core.is_core_candidate(text)
        found.append({**doc, "suggested_category": category if ok else ""})
        if len(found) >= limit:
            break
    return found


def core_view() -> CoreView:
    return CoreView(
        core_notes().get_all_items(), working_notes().get_all_items(), promotion_candidates()
    )


# --- overview pictures -------------------------------------------------------------------------


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
    from django.conf import settings

    threshold = settings.QQ_ARCHIVE_THRESHOLD if archive_threshold is None else archive_threshold
    now = utcnow_naive()
    stored: list[float] = []
    effective: dict[int, list[float]] = {d: [] for d in (0, 7, 30, 90)}
    types: Counter[str] = Counter()
    files: Counter[str] = Counter()
    created_weeks: Counter[int] = Counter()
    try:
        for doc in notes_store().collection.find({}, _INSIGHT_FIELDS).batch_size(5000):
            importance = doc.get("importance")
            stored.append(float(importance) if isinstance(importance, int | float) else 0.5)
            for days, values in effective.items():
                values.append(effective_importance(doc, now + timedelta(days=days)))
            source = doc.get("source") or {}
            types[str(source.get("source_type") or "none")] += 1
            if source.get("file_path"):
                files[str(source["file_path"])] += 1
            created = doc.get("created_at")
            if created is not None:
                created_weeks[(now - created).days // 7] += 1
    except PyMongoError as e:
        raise StoreUnavailable("mongodb", str(e)) from e

    def bucket(values: list[float]) -> list[int]:
        counts, _ = np.histogram(np.clip(values, 0, 1), bins=bins, range=(0, 1))
        return [int(c) for c in counts]

    labels = [f"{i / bins:.1f}" for i in range(bins)]
    histogram = histogram_chart(
        labels,
        bucket(stored),
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
