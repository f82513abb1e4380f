"""archive.jsonl: browse, restore, purge."""

from __future__ import annotations

from typing import Annotated, Any

from django.http import HttpRequest
from pydantic import Field

from memory_app.notes import selectors, services
from memory_app.notes.api.common import _counts, router
from memory_app.notes.lib.archive.filters import ArchiveFilter
from memory_app.notes.lib.domain import Note
from memory_app.notes.schemas import ArchiveOut, NoteOut, PurgeIn, PurgeOut, RestoreIn
from qqweb.lib.actors import Actor
from qqweb.lib.api_types import Limit1000, NoBool, SearchText, ShortText, errors
from qqweb.lib.auth import ADMIN, VIEWER, require_role
from qqweb.recall.effect_schemas import effect_out
from qqweb.recall.lost_pins import ConfirmLostPins, pins_guarded

ArchiveOffset = Annotated[
    int, Field(ge=0, le=2**53, description="where to go on from: a page's `older`"), NoBool
]


@router.get("/archive", response={200: ArchiveOut, **errors(400, 503)}, tags=["archive"])
def archive_list(
    request: HttpRequest,
    q: SearchText = "",
    include_restored: bool = False,
    limit: Limit1000 = 100,
    before: ArchiveOffset | None = None,
    reason: ShortText | None = None,
    section: ShortText | None = None,
    month: ShortText | None = None,
    restored_only: bool = False,
) -> dict[str, Any]:
    """archive.jsonl newest first, searched by content or id, filtered by ``reason`` (a
    reason's group as ``by_reason`` counts it), ``section``, ``month`` (YYYY-MM archived)
    and the restored lines; unreadable lines listed; ``matching``: how many lines the
    filters list. A page reads the file back from its end (or from ``before``, the
    previous page's ``older``) at most 2 MB a request: a search that finds fewer than
    ``limit`` lines there answers what it found and ``older``, where to go on."""
    require_role(request, VIEWER)
    flt = ArchiveFilter(
        reason=reason,
        section=section,
        month=month,
        include_restored=include_restored,
        restored_only=restored_only,
    )
    view = selectors.archive_browse(query=q, flt=flt, limit=limit, before=before)
    return {
        "items": [vars(n) for n in view.entries],
        "total": view.total,
        "restored": view.restored,
        "by_reason": _counts(view.by_reason),
        "unreadable_lines": [
            {"line": b.number, "error": b.error, "raw": b.raw[:500]} for b in view.bad_lines
        ],
        "unreadable": view.unreadable,
        "older": view.older,
        "matching": view.matching,
    }


@router.post(
    "/archive/{note_id}/restore", response={200: NoteOut, **errors(404, 409, 503)}, tags=["archive"]
)
def archive_restore(request: HttpRequest, note_id: str, body: RestoreIn) -> Note:
    """Restore (admin): re-embedded, provenance back, kept from the archival pass for
    ``keep_days`` (default QQ_RESTORE_GRACE_DAYS). 409 with a ``suggested_id`` when the
    id exists in MongoDB; send it back as ``new_id`` to restore under it."""
    require_role(request, ADMIN)
    doc = services.note_restore(
        actor=Actor.from_request(request),
        note_id=note_id,
        new_id=body.new_id,
        keep_days=body.keep_days,
    )
    return selectors.note_get(note_id=doc.note_id)


@router.post("/archive/purge", response={200: PurgeOut, **errors(409, 503)}, tags=["archive"])
def archive_purge(
    request: HttpRequest, body: PurgeIn, confirm_lost_pins: ConfirmLostPins = False
) -> dict[str, Any]:
    """Drop lines older than ``days`` (admin). ``dry_run`` (the default) only counts, and
    says what the purge would do to the pinned recalls (``pins``). A purge that would
    lose one (it drops the archive line a pinned, merged note is followed by) answers 409
    ``would_lose_pins`` naming each and drops nothing, unless ``confirm_lost_pins=true``."""
    require_role(request, ADMIN)
    actor = Actor.from_request(request)
    if body.dry_run:
        counted = services.archive_purge(actor=actor, days=body.days, dry_run=True)
        return {**counted, "pins": effect_out(selectors.archive_purge_preview(days=body.days).pins)}
    with pins_guarded(
        lambda: [selectors.archive_purge_preview(days=body.days).pins], confirmed=confirm_lost_pins
    ):
        return services.archive_purge(actor=actor, days=body.days)
