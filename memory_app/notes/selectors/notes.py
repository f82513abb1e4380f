"""Reads of notes: the list, one note with everything around it, search."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from memory_app.notes.lib import InvalidQuery, NoteNotFound
from memory_app.notes.lib.constants import SECTIONS
from memory_app.notes.lib.core_suggest import core_category_suggest
from memory_app.notes.lib.documents import effective_importance, utcnow_naive
from memory_app.notes.lib.domain import Note
from memory_app.notes.lib.grace import KEEP_UNTIL_FIELD
from memory_app.notes.lib.listing import NoteFilter, NotesCount, NotesPage
from memory_app.notes.lib.replica import lists as read_list
from memory_app.notes.stores import notes_store
from qqweb.audit.models import AuditEvent
from qqweb.audit.selectors import target_history
from qqweb.audit.snapshots import to_json
from qqweb.lib.clients import embedder
from qqweb.lib.errors import QQError
from qqweb.lib.query_vectors import query_vector
from qqweb.lib.words import source_field_words


def notes_count(*, flt: NoteFilter) -> NotesCount:
    """The list's total, counted in the read model (``memory/read_list.py``)."""
    return read_list.count(notes_store(), flt, now=utcnow_naive())


def notes_list(
    *,
    flt: NoteFilter,
    sort: str = "updated",
    direction: str = "desc",
    cursor: str | None = None,
    limit: int = 50,
) -> NotesPage:
    """One page, picked in the read model and fetched by id (``memory/read_list.py``)."""
    return read_list.list_page(
        notes_store(),
        flt,
        sort=sort,
        direction=direction,
        cursor=cursor,
        limit=limit,
        now=utcnow_naive(),
    )


def note_get(*, note_id: str) -> Note:
    note = notes_store().note(note_id)
    if note is None:
        raise NoteNotFound(note_id)
    value = effective_importance(note.to_document(), utcnow_naive())
    return note.annotated(effective_importance=value)


@dataclass
class NoteDetail:
    note: Note
    curve: list[tuple[int, float]]
    similar: list[Note]  # each with its ``score``
    similar_error: str
    suggested_category: str
    history: list[AuditEvent]

    @property
    def dimension(self) -> int:
        return len(self.note.embedding)

    @property
    def kept_until(self) -> datetime | None:
        """The end of the note's grace period from archival, while it runs."""
        until = self.note.extra.get(KEEP_UNTIL_FIELD)
        return until if isinstance(until, datetime) and until > utcnow_naive() else None

    @property
    def raw_json(self) -> str:
        """The stored document as JSON, read-only: dates as ``{"$date": ...}`` (naive UTC,
        as stored), the embedding cut to its first 8 values (its length is said)."""
        return document_json(self.note.to_document())

    @property
    def provenance_timeline(self) -> list[SourceSummary]:
        """``source_history`` as rows to show, whatever shape each entry has."""
        return [source_summary(s) for s in self.note.source_history if isinstance(s, Mapping)]

    @property
    def source_fields(self) -> list[tuple[str, str]]:
        """The latest ``source`` as (label, text) rows, nested dicts flattened, empties left
        out, each key as its label ("git_metadata.repo" -> "Repository")."""
        source = self.note.source
        if not isinstance(source, Mapping):
            return []
        return [(source_field_words(key), text) for key, text in flatten_fields(source)]

    @property
    def curve_points(self) -> str:
        """SVG polyline points of the curve in a 300 x 100 box (day 0..90, value 0..1)."""
        return " ".join(
            f"{day / 90 * 300:.1f},{100 - value * 100:.1f}" for day, value in self.curve
        )


def document_json(doc: Mapping[str, Any], keep_values: int = 8) -> str:
    """A note's document as indented JSON (extended-JSON dates); a long embedding is cut
    to ``keep_values`` values followed by a string naming its length."""
    out = dict(doc)
    vector = out.get("embedding")
    if isinstance(vector, list) and len(vector) > keep_values:
        out["embedding"] = [*vector[:keep_values], f"... {len(vector)} values in all"]
    return json.dumps(to_json(out), indent=2, ensure_ascii=False, default=str)


def flatten_fields(data: Mapping[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            rows.extend(flatten_fields(value, f"{name}."))
        elif value not in (None, "", [], {}):
            rows.append((name, str(value)))
    return rows


@dataclass(frozen=True)
class SourceSummary:
    """One provenance entry as a row: when, what kind, where, which lines."""

    when: str
    kind: str
    where: str
    lines: str


def source_summary(source: Mapping[str, Any]) -> SourceSummary:
    """One provenance entry of either shape (provenance record or file analyzer record),
    never assuming a key exists."""
    when = source.get("timestamp") or source.get("analyzed_at") or ""
    where = source.get("file_path") or ""
    if not where and source.get("session_id"):
        where = f"session {source['session_id']}"
    line = ""
    if source.get("line_start"):
        line = f"lines {source.get('line_start')}-{source.get('line_end') or source['line_start']}"
    return SourceSummary(
        when=str(when),
        kind=str(source.get("source_type") or "unknown"),
        where=str(where or source.get("source_id") or ""),
        lines=line,
    )


def note_detail(*, note_id: str) -> NoteDetail:
    """Everything the note page shows: every field, the effective-importance curve over
    the next 90 days, similar notes, the suggested core category, its audit history."""
    note = note_get(note_id=note_id)
    now = utcnow_naive()
    document = note.to_document()
    curve = [
        (day, effective_importance(document, now + timedelta(days=day))) for day in range(0, 91, 5)
    ]
    similar: list[Note] = []
    error = ""
    if note.embedding:
        try:
            hits = notes_store().similar_notes(list(note.embedding), limit=6)
            similar = [h for h in hits if h.note_id != note_id][:5]
        except QQError as e:
            error = str(e)
    category = core_category_suggest(note.content, note.section)
    history = target_history(target_id=note_id)
    return NoteDetail(note, curve, similar, error, category, history)


@dataclass
class SearchOutcome:
    results: list[Note]
    compared: int
    skipped_other_dimensions: dict[int, int]
    model: str
    without_vector: int | None = None  # notes search cannot reach: stored with no vector


def notes_search(
    *, query: str, section: str | None = None, min_score: float | None = None, limit: int = 20
) -> SearchOutcome:
    """Embed the query with the configured embedder and search. A dimension the stored
    vectors do not have raises DimensionMismatch, with a plain message. The outcome says
    how many notes were compared, and how many were not and why: another model's vectors,
    or no vector at all (``without_vector``, counted in the read model)."""
    query = query.strip()
    if not query:
        raise InvalidQuery("query", "type something to search for")
    if section is not None and section not in SECTIONS:
        raise InvalidQuery("section", f"must be one of {', '.join(SECTIONS)}")
    model = embedder()
    vector = query_vector(model, query)  # the last 256 queries' vectors are kept
    store = notes_store()
    result = store.vector_index.search(vector, limit=limit, section=section, min_score=min_score)
    scores = dict(result.hits)
    found = store.notes_by_ids(scores)
    now = utcnow_naive()
    results = []
    for note_id, score in result.hits:
        if note_id in found:
            note = found[note_id]
            results.append(
                note.annotated(
                    effective_importance=effective_importance(note.to_document(), now),
                    score=round(score, 4),
                )
            )
    missing = notes_count(flt=NoteFilter(section=section, no_embedding=True))
    return SearchOutcome(
        results,
        result.compared,
        result.skipped_other_dimensions,
        model.model_name,
        missing.value if not missing.capped else None,
    )
