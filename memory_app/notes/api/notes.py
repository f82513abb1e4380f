"""Notes: overview counts, the list, histogram, search, bulk, one note."""

from __future__ import annotations

from typing import Annotated

from django.http import HttpRequest
from ninja import Query, Status
from pydantic import Field

from memory_app.notes import selectors, services
from memory_app.notes.api.common import _counts, _utc_naive, router
from memory_app.notes.lib.archive import ArchivedNote
from memory_app.notes.lib.domain import Note
from memory_app.notes.lib.listing import NoteFilter
from memory_app.notes.schemas import (
    ArchiveLineOut,
    BulkIn,
    BulkOut,
    HistogramOut,
    MemoryOverviewOut,
    NoteCreateIn,
    NoteId,
    NoteOut,
    NotePatchIn,
    NotesPageOut,
    NotesQuery,
    SearchIn,
    SearchOut,
)
from memory_app.notes.selectors.plan_effects import ARCHIVED_BY_ARCHIVE, notes_removal_effect
from qqweb.lib.actors import Actor
from qqweb.lib.api_types import ShortText, errors
from qqweb.lib.auth import CURATOR, VIEWER, require_role
from qqweb.recall.lost_pins import ConfirmLostPins, pins_guarded


@router.get("/overview", response={200: MemoryOverviewOut, **errors()})
def overview(request: HttpRequest) -> MemoryOverviewOut:
    """Notes by section, archive lines, core and working notes. A store that is down is
    named in ``errors``; the other counts are still given."""
    require_role(request, VIEWER)
    data = selectors.memory_overview()
    return MemoryOverviewOut(
        notes_total=data.notes_total,
        notes_by_section=_counts(data.notes_by_section),
        archive=data.archive,
        core_by_category=_counts(data.core_by_category),
        working_by_section=_counts(data.working_by_section),
        errors=data.errors,
        loading=data.loading,
    )


@router.get("/notes", response={200: NotesPageOut, **errors(503)})
def notes_list(request: HttpRequest, query: Query[NotesQuery]) -> NotesPageOut:
    """Filtered, sorted, keyset-paged notes (no embeddings). Pass ``next_cursor`` back as
    ``cursor`` for the next page; it is null on the last one. Times are UTC. Answered
    from the read model (503 while a large list is still loading)."""
    require_role(request, VIEWER)
    page = selectors.notes_list(
        flt=query.note_filter(),
        sort=query.sort,
        direction=query.direction,
        cursor=query.cursor,
        limit=query.limit,
    )
    return NotesPageOut(
        items=[NoteOut.from_orm(note) for note in page.items],
        next_cursor=page.next_cursor,
        offset=page.offset,
        total=page.total,
    )


@router.get("/notes/histogram", response={200: HistogramOut, **errors(503)})
def notes_histogram(
    request: HttpRequest,
    bins: Annotated[int, Field(ge=1, le=100)] = 10,
    section: ShortText | None = None,
) -> HistogramOut:
    """Stored importance in equal buckets over [0, 1], counted from the read model (what
    the database counts, without a scan); 503 while a process that just started loads it."""
    require_role(request, VIEWER)
    NoteFilter(section=section)  # checks the section name
    histogram = selectors.importance_histogram(bins=bins, section=section)
    return HistogramOut(edges=histogram.edges, counts=histogram.counts)


@router.post("/notes/search", response={200: SearchOut, **errors(503)})
def notes_search(request: HttpRequest, body: SearchIn) -> SearchOut:
    """Semantic search with the configured embedder; 422 when its dimension does not
    match the stored vectors."""
    require_role(request, VIEWER)
    outcome = selectors.notes_search(
        query=body.query, section=body.section, min_score=body.min_score, limit=body.limit
    )
    return SearchOut(
        results=[NoteOut.from_orm(note) for note in outcome.results],
        compared=outcome.compared,
        skipped_other_dimensions=outcome.skipped_other_dimensions,
        model=outcome.model,
        without_vector=outcome.without_vector,
    )


@router.post("/notes/bulk", response={200: BulkOut, **errors(409, 503)})
def notes_bulk(
    request: HttpRequest, body: BulkIn, confirm_lost_pins: ConfirmLostPins = False
) -> BulkOut:
    """Archive, set importance or move section for ``note_ids`` or every note matching
    ``filter``; one batch id for the audit log (undo the whole batch there). An archive
    that would lose a pinned recall answers 409 ``would_lose_pins`` naming each (``pins``)
    and writes nothing, unless ``confirm_lost_pins=true``."""
    require_role(request, CURATOR)
    actor = Actor.from_request(request)
    flt = body.filter.note_filter() if body.filter else None
    with pins_guarded(
        lambda: services.notes_bulk_effects(action=body.action, note_ids=body.note_ids, flt=flt),
        confirmed=confirm_lost_pins,
    ):
        result = services.notes_bulk(
            actor=actor,
            action=body.action,
            note_ids=body.note_ids,
            flt=flt,
            importance=body.importance,
            section=body.section,
        )
    return BulkOut(
        batch_id=str(result.batch_id),
        action=result.action,
        done=result.done,
        failed=[{"note_id": i, "error": e} for i, e in result.failed],
    )


@router.post("/notes", response={201: NoteOut, **errors(409, 503)})
def note_create(request: HttpRequest, body: NoteCreateIn) -> Status:
    """Add a note by hand, in the agent's shape, embedded with the configured model (409
    when its dimension differs from the stored vectors'); undo it from the audit log."""
    require_role(request, CURATOR)
    note = services.note_create(
        actor=Actor.from_request(request),
        content=body.content,
        section=body.section,
        importance=body.importance,
    )
    return Status(201, selectors.note_get(note_id=note.note_id))


@router.get("/notes/{note_id}", response={200: NoteOut, **errors(404, 503)})
def note_get(request: HttpRequest, note_id: NoteId) -> Note:
    require_role(request, VIEWER)
    return selectors.note_get(note_id=note_id)


@router.patch("/notes/{note_id}", response={200: NoteOut, **errors(404, 409, 503)})
def note_patch(request: HttpRequest, note_id: NoteId, body: NotePatchIn) -> Note:
    """Edit content (re-embedded), section or importance. 409 when the note changed after
    ``expected_updated_at``."""
    require_role(request, CURATOR)
    doc = services.note_edit(
        actor=Actor.from_request(request),
        note_id=note_id,
        expected_updated_at=_utc_naive(body.expected_updated_at),
        content=body.content,
        section=body.section,
        importance=body.importance,
    )
    return selectors.note_get(note_id=doc.note_id)


@router.delete("/notes/{note_id}", response={200: ArchiveLineOut, **errors(404, 409, 503)})
def note_delete(
    request: HttpRequest, note_id: NoteId, confirm_lost_pins: ConfirmLostPins = False
) -> ArchivedNote:
    """Archive the note (archive.jsonl first, then MongoDB); undo it from the audit log.
    A note a passing pinned recall goes through answers 409 ``would_lose_pins`` naming
    each pin (``pins``) and writes nothing, unless ``confirm_lost_pins=true``."""
    require_role(request, CURATOR)
    with pins_guarded(
        lambda: [notes_removal_effect([note_id], gone=ARCHIVED_BY_ARCHIVE)],
        confirmed=confirm_lost_pins,
    ):
        return services.note_archive(actor=Actor.from_request(request), note_id=note_id)
