"""Writes to the notes memory. Every mutation a person, a token or a job makes goes
through one of these functions, which writes an audit event in the same step (pending
before the store is touched, done or failed after) with the state before and after,
enough to undo it with :func:`qqweb.audit.services.audit_undo`.

Functions are keyword-only and named ``<noun>_<verb>``; the HTML views, the JSON API and
the Celery tasks all call these, never the stores directly.
"""

from memory_app.notes.services import archive, files, jobs, merging, notes, review
from memory_app.notes.services.archive import archive_purge, archive_restore_many
from memory_app.notes.services.bulk import (
    BULK_ACTIONS,
    BULK_MAX,
    bulk_matching_ids,
    notes_bulk,
    notes_bulk_effects,
    notes_bulk_preview,
)
from memory_app.notes.services.files import (
    CoreItem,
    core_item_add,
    core_item_remove,
    core_promote,
    promotion_approve,
    promotion_reject,
    working_item_edit,
    working_item_remove,
)
from memory_app.notes.services.merging import cosine, pair_merge, pair_supersede
from memory_app.notes.services.notes import (
    MANUAL_ARCHIVE_REASON,
    note_archive,
    note_create,
    note_edit,
    note_keep,
    note_restore,
)
from memory_app.notes.services.review import (
    VERDICTS,
    duplicates_scan,
    review_back,
    review_verdict,
)

# Every undo handler of the notes memory by action, registered in MemoryAppConfig.ready().
UNDO_HANDLERS = {
    action: handler
    for module in (notes, merging, files, archive, review, jobs)
    for action, handler in module.UNDO_HANDLERS.items()
}

# The role each action needed, which its undo needs too: a curator's edits, additions,
# archives, grace periods, merges, supersedes, promotions and verdicts; everything else
# (restores, purges, job runs, and any action not listed here) an admin's.
_CURATOR_ACTIONS = {
    "note.create",
    "note.edit",
    "note.keep",
    "note.archive",
    "pair.merge",
    "pair.supersede",
    "pair.reject",
    "core.add",
    "core.promote",
    "core.remove",
    "working.remove",
    "working.edit",
    "promotion.reject",
}
UNDO_ROLES = {
    action: "curator" if action in _CURATOR_ACTIONS else "admin" for action in UNDO_HANDLERS
}

__all__ = [
    "BULK_ACTIONS",
    "BULK_MAX",
    "MANUAL_ARCHIVE_REASON",
    "UNDO_HANDLERS",
    "UNDO_ROLES",
    "VERDICTS",
    "CoreItem",
    "archive_purge",
    "archive_restore_many",
    "bulk_matching_ids",
    "core_item_add",
    "core_item_remove",
    "core_promote",
    "cosine",
    "duplicates_scan",
    "note_archive",
    "note_create",
    "note_edit",
    "note_keep",
    "note_restore",
    "notes_bulk",
    "notes_bulk_effects",
    "notes_bulk_preview",
    "pair_merge",
    "pair_supersede",
    "promotion_approve",
    "promotion_reject",
    "review_back",
    "review_verdict",
    "working_item_edit",
    "working_item_remove",
]
