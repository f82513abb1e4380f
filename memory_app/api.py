"""JSON front door of the notes: a ninja router added to ``qqweb.api``. Every function
checks the role, converts its input and calls one selector or service."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from django.http import HttpRequest
from ninja import Query, Router, Status
from ninja.errors import HttpError

from memory_app import selectors, services
from memory_app.job_params import DedupScanParams
from memory_app.jobs import job_start
from memory_app.memory import InvalidNote
from memory_app.memory.domain import Note
from memory_app.memory.listing import NoteFilter
from memory_app.models import MaintenanceRun, ReviewPair
from memory_app.schemas import (
    ArchiveLineOut,
    ArchiveOut,
    AuditEventOut,
    BulkIn,
    BulkOut,
    CandidateOut,
    CoreOut,
    HistogramOut,
    JobIn,
    MemoryOverviewOut,
    NoteOut,
    NotePatchIn,
    NotesPageOut,
    NotesQuery,
    PromoteIn,
    PromoteOut,
    PurgeIn,
    PurgeOut,
    RestoreIn,
    RetrievalIn,
    RetrievalOut,
    ReviewPairOut,
    RunOut,
    SearchIn,
    SearchOut,
    SuggestionIn,
    SuggestionOut,
    VerdictIn,
    job_in,
)
from memory_app.services.maintenance import JOBS, Job
from qqweb.actors import Actor
from qqweb.audit import selectors as audit_selectors
from qqweb.audit import services as audit_services
from qqweb.audit.models import AuditEvent
from qqweb.auth import ADMIN, CURATOR, VIEWER, require_role

router = Router(tags=["notes"])


def _counts(rows: list[tuple[str, int]]) -> list[dict[str, Any]]:
    return [{"name": name, "count": count} for name, count in rows]


def _utc_naive(value: datetime) -> datetime:
    return value.astimezone(UTC).replace(tzinfo=None) if value.tzinfo else value


@router.get("/overview", response=MemoryOverviewOut)
def overview(request: HttpRequest) -> dict[str, Any]:
    """Notes by section, archive lines, core and working notes. A store that is down is
    named in ``errors``; the other counts are still given."""
    require_role(request, VIEWER)
    data = selectors.memory_overview()
    return {
        "notes_total": data.notes_total,
        "notes_by_section": _counts(data.notes_by_section),
        "archive": data.archive,
        "core_by_category": _counts(data.core_by_category),
        "working_by_section": _counts(data.working_by_section),
        "errors": data.errors,
    }


@router.get("/notes", response=NotesPageOut)
def notes_list(request: HttpRequest, query: Query[NotesQuery]) -> dict[str, Any]:
    """Filtered, sorted, keyset-paged notes (no embeddings). Pass ``next_cursor`` back as
    ``cursor`` for the next page; it is null on the last one. Times are UTC."""
    require_role(request, VIEWER)
    page = selectors.notes_list(
        flt=query.note_filter(),
        sort=query.sort,
        direction=query.direction,
        cursor=query.cursor,
        limit=query.limit,
    )
    return {"items": page.items, "next_cursor": page.next_cursor}


@router.get("/notes/histogram", response=HistogramOut)
def notes_histogram(
    request: HttpRequest, bins: int = 10, section: str | None = None
) -> dict[str, Any]:
    """Stored importance in equal buckets over [0, 1], counted by the database."""
    require_role(request, VIEWER)
    NoteFilter(section=section)  # checks the section name
    histogram = selectors.importance_histogram(bins=bins, section=section)
    return {"edges": histogram.edges, "counts": histogram.counts}


@router.post("/notes/search", response=SearchOut)
def notes_search(request: HttpRequest, body: SearchIn) -> dict[str, Any]:
    """Semantic search with the configured embedder; 422 when its dimension does not
    match the stored vectors."""
    require_role(request, VIEWER)
    outcome = selectors.notes_search(
        query=body.query, section=body.section, min_score=body.min_score, limit=body.limit
    )
    return {
        "results": outcome.results,
        "compared": outcome.compared,
        "skipped_other_dimensions": outcome.skipped_other_dimensions,
        "model": outcome.model,
    }


@router.post("/notes/bulk", response=BulkOut)
def notes_bulk(request: HttpRequest, body: BulkIn) -> dict[str, Any]:
    """Archive, set importance or move section for ``note_ids`` or every note matching
    ``filter``; one batch id for the audit log (undo the whole batch there)."""
    require_role(request, CURATOR)
    result = services.notes_bulk(
        actor=Actor.from_request(request),
        action=body.action,
        note_ids=body.note_ids,
        flt=body.filter.note_filter() if body.filter else None,
        importance=body.importance,
        section=body.section,
    )
    return {
        "batch_id": str(result.batch_id),
        "action": result.action,
        "done": result.done,
        "failed": [{"note_id": i, "error": e} for i, e in result.failed],
    }


@router.get("/notes/{note_id}", response=NoteOut)
def note_get(request: HttpRequest, note_id: str) -> Note:
    require_role(request, VIEWER)
    return selectors.note_get(note_id=note_id)


@router.patch("/notes/{note_id}", response=NoteOut)
def note_patch(request: HttpRequest, note_id: str, body: NotePatchIn) -> Note:
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
    return selectors.note_get(note_id=str(doc["note_id"]))


@router.delete("/notes/{note_id}", response=ArchiveLineOut)
def note_delete(request: HttpRequest, note_id: str) -> dict[str, Any]:
    """Archive the note (archive.jsonl first, then MongoDB); undo it from the audit log."""
    require_role(request, CURATOR)
    return services.note_archive(actor=Actor.from_request(request), note_id=note_id)


@router.get("/audit", response=list[AuditEventOut], tags=["audit"])
def audit_list(
    request: HttpRequest, actor: str = "", action: str = "", target: str = "", limit: int = 100
) -> list[dict[str, Any]]:
    require_role(request, VIEWER)
    return [
        _event_out(e)
        for e in audit_selectors.audit_events(
            actor=actor, action=action, target=target, limit=limit
        )
    ]


@router.post("/audit/{event_id}/undo", response=AuditEventOut, tags=["audit"])
def audit_undo(request: HttpRequest, event_id: int) -> dict[str, Any]:
    """Undo one action; 409 with the reason when it cannot be undone."""
    require_role(request, CURATOR)
    return _event_out(
        audit_services.audit_undo(actor=Actor.from_request(request), event_id=event_id)
    )


def _event_out(event: AuditEvent) -> dict[str, Any]:
    return {
        "id": event.pk,
        "created_at": event.created_at,
        "actor": event.actor,
        "action": event.action,
        "target_type": event.target_type,
        "target_id": event.target_id,
        "batch_id": str(event.batch_id),
        "status": event.status,
        "detail": event.detail,
        "before": event.before,
        "after": event.after,
        "undone_at": event.undone_at,
        "undo_of": event.undo_of_id,
    }


@router.get("/archive", response=ArchiveOut, tags=["archive"])
def archive_list(
    request: HttpRequest, q: str = "", include_restored: bool = False, limit: int = 100
) -> dict[str, Any]:
    """archive.jsonl newest first, searched by content or id; unreadable lines listed."""
    require_role(request, VIEWER)
    view = selectors.archive_browse(query=q[:500], include_restored=include_restored, limit=limit)
    return {
        "items": [vars(n) for n in view.entries],
        "total": view.total,
        "restored": view.restored,
        "by_reason": _counts(view.by_reason),
        "unreadable_lines": [
            {"line": b.number, "error": b.error, "raw": b.raw[:500]} for b in view.bad_lines
        ],
    }


@router.post("/archive/{note_id}/restore", response=NoteOut, tags=["archive"])
def archive_restore(request: HttpRequest, note_id: str, body: RestoreIn) -> Note:
    """Restore (admin): re-embedded, provenance back. 409 with a ``suggested_id`` when the
    id exists in MongoDB; send it back as ``new_id`` to restore under it."""
    require_role(request, ADMIN)
    doc = services.note_restore(
        actor=Actor.from_request(request), note_id=note_id, new_id=body.new_id
    )
    return selectors.note_get(note_id=str(doc["note_id"]))


@router.post("/archive/purge", response=PurgeOut, tags=["archive"])
def archive_purge(request: HttpRequest, body: PurgeIn) -> dict[str, Any]:
    """Drop lines older than ``days`` (admin). ``dry_run`` (the default) only counts."""
    require_role(request, ADMIN)
    return services.archive_purge(
        actor=Actor.from_request(request), days=body.days, dry_run=body.dry_run
    )


@router.get("/core", response=CoreOut, tags=["core"])
def core_get(request: HttpRequest) -> dict[str, Any]:
    """core.md by category and notes.md by section."""
    require_role(request, VIEWER)
    view = selectors.core_view()
    return {"core": view.core, "working": view.working}


@router.get("/core/candidates", response=list[CandidateOut], tags=["core"])
def core_candidates(request: HttpRequest, limit: int = 50) -> list[dict[str, Any]]:
    """Promotion candidates (importance >= 0.8, read >= 3 times) with no verdict yet."""
    require_role(request, VIEWER)
    return selectors.promotion_candidates(limit=max(1, min(limit, 200)))


@router.post("/core/promote", response=PromoteOut, tags=["core"])
def core_promote(request: HttpRequest, body: PromoteIn) -> dict[str, Any]:
    require_role(request, CURATOR)
    return services.promotion_approve(
        actor=Actor.from_request(request), note_id=body.note_id, category=body.category
    )


@router.post("/core/candidates/{note_id}/reject", response={204: None}, tags=["core"])
def core_candidate_reject(request: HttpRequest, note_id: str) -> Status:
    require_role(request, CURATOR)
    services.promotion_reject(actor=Actor.from_request(request), note_id=note_id)
    return Status(204, None)


@router.post("/retrieval/preview", response=RetrievalOut, tags=["retrieval"])
def retrieval_preview(request: HttpRequest, body: RetrievalIn) -> dict[str, Any]:
    """What the agent would inject for ``message``: core notes, the notes at or above
    QQ_CITE_THRESHOLD, the graph entities it names, and the final markdown block."""
    require_role(request, VIEWER)
    preview = selectors.retrieval_preview(message=body.message, limit=body.limit)
    return {
        "markdown": preview.markdown,
        "core": preview.core,
        "notes": preview.notes,
        "entities": preview.entities,
        "warnings": preview.warnings,
    }


@router.get("/duplicates", response=list[ReviewPairOut], tags=["duplicates"])
def duplicates_list(
    request: HttpRequest, status: str = "pending", limit: int = 100
) -> list[ReviewPair]:
    """The review queue, most similar first."""
    require_role(request, VIEWER)
    if status not in dict(ReviewPair.STATUSES):
        raise InvalidNote("status", "must be pending, merged, rejected or skipped")
    return list(ReviewPair.objects.filter(status=status)[: max(1, min(limit, 1000))])


@router.post("/duplicates/scan", response={202: RunOut}, tags=["duplicates"])
def duplicates_scan(request: HttpRequest, body: DedupScanParams) -> Status:
    """Start a dedup scan in the worker (admin); poll ``/api/maintenance/runs/{id}``."""
    require_role(request, ADMIN)
    run = job_start(kind="dedup_scan", actor=Actor.from_request(request), params=body)
    return Status(202, run)


@router.get("/maintenance/runs/{run_id}", response=RunOut, tags=["maintenance"])
def maintenance_run(request: HttpRequest, run_id: int) -> MaintenanceRun:
    require_role(request, VIEWER)
    run = MaintenanceRun.objects.filter(pk=run_id).first()
    if run is None:
        raise HttpError(404, f"there is no run {run_id}")
    return run


@router.post("/duplicates/{pair_id}/verdict", response=ReviewPairOut, tags=["duplicates"])
def duplicates_verdict(request: HttpRequest, pair_id: int, body: VerdictIn) -> ReviewPair:
    """merge (into ``primary_id``, optionally with ``content``), not_duplicate
    (remembered until a text changes) or skip. Without ``primary_id`` the merge keeps the
    agent's primary, the note of higher importance (ties: more reads, then older), as the
    review page pre-selects and auto-consolidation does."""
    require_role(request, CURATOR)
    return services.review_verdict(
        actor=Actor.from_request(request),
        pair_id=pair_id,
        verdict=body.verdict,
        primary_id=body.primary_id,
        content=body.content,
    )


@router.post("/duplicates/{pair_id}/suggestion", response=SuggestionOut, tags=["duplicates"])
def duplicates_suggestion(
    request: HttpRequest, pair_id: int, body: SuggestionIn
) -> selectors.MergeSuggestion:
    """The merged text the configured LLM (``QQ_LLM_URL``) suggests for a pending pair
    (kept ``primary_id``, or the agent's choice). Nothing is written: send it back as the
    ``content`` of a merge verdict. 400 when no LLM is configured, 503 when it does not
    answer."""
    require_role(request, CURATOR)
    return selectors.review_llm_text(pair_id=pair_id, primary_id=body.primary_id)


@router.get("/maintenance/runs", response=list[RunOut], tags=["maintenance"])
def maintenance_runs(request: HttpRequest, kind: str = "", limit: int = 50) -> list[Any]:
    require_role(request, VIEWER)
    runs = MaintenanceRun.objects.all()
    if kind:
        runs = runs.filter(kind=kind)
    return list(runs[: max(1, min(limit, 500))])


def _maintenance_start(job: Job) -> None:
    """``POST /maintenance/<kind>``, whose body's ``params`` is the job's own schema: a
    bad or unknown parameter is a 422 naming it, before any run is created."""

    def start(request: HttpRequest, body: JobIn) -> Status:
        require_role(request, ADMIN)
        run = job_start(
            kind=job.kind,
            actor=Actor.from_request(request),
            dry_run=body.dry_run,
            params=body.params,
        )
        return Status(202, run)

    start.__annotations__["body"] = job_in(job.kind, job.params)  # ninja reads it from here
    router.post(
        f"/maintenance/{job.kind}",
        response={202: RunOut},
        tags=["maintenance"],
        operation_id=f"maintenance_start_{job.kind}",
        summary=f"Start: {job.title}",
        description=f"{job.description} Runs in the worker (admin); ``dry_run`` reports "
        "what it would do and changes nothing. Poll ``/api/maintenance/runs/{id}``.",
    )(start)


for _job in JOBS.values():
    _maintenance_start(_job)


@router.post("/maintenance/{job}", include_in_schema=False)
def maintenance_start_unknown(request: HttpRequest, job: str) -> None:
    """Every job has its own route above; this one names the jobs there are."""
    require_role(request, ADMIN)
    raise InvalidNote("job", f"must be one of {', '.join(JOBS)}")


@router.post("/audit/batches/{batch_id}/undo", tags=["audit"])
def audit_batch_undo(request: HttpRequest, batch_id: uuid.UUID) -> dict[str, Any]:
    """Undo every action of a batch (a bulk action or a maintenance run), newest first;
    what cannot be undone is listed with the reason."""
    require_role(request, CURATOR)
    undone, refused = audit_services.batch_undo(
        actor=Actor.from_request(request), batch_id=batch_id
    )
    return {"undone": undone, "refused": refused}
