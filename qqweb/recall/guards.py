"""Every write of the dashboard's pages, sorted by whether it can lose a pinned recall.

A write loses a pin when it takes out of the agent's memory the item the pin is recalled
through (archives, deletes or merges it, drops the archive line a merged note is followed
by). Each write in :data:`PIN_LOSING_WRITES` shows the pin preview first: the same
partial (``templates/_pins_lost.html``) with what
:func:`qqweb.recall.effects.plan_effect` computes, before the button that writes, and
says which step shows it. Every other write is in :data:`WRITES_KEEPING_PINS`, with why
it cannot lose one. ``tests/qqweb/recall/test_pin_guards.py`` fails when a write of the
URLconf is in neither list, and checks, write by write, that the preview of each listed
one names a pin it would lose.

The API's writes are sorted the same way (:data:`API_PIN_LOSING_WRITES`, answered 409
``would_lose_pins`` unless ``confirm_lost_pins=true``: :mod:`qqweb.recall.lost_pins`;
:data:`API_WRITES_KEEPING_PINS`), and the same test walks the NinjaAPI's routes. A
destructive job started with ``dry_run`` false asks in the worker, on the plan it makes:
that plan waits for review instead (``memory_app.notes.services.jobs.pins_first``).

Not counted anywhere (docs/memory-tests.md): a write that changes a text or an
importance (an edit, an undo putting an old text back) or adds items (an import, a new
note) may move a pinned item down the agent's order; the next memory-test run says so.
"""

from __future__ import annotations

# URL name -> where the curator sees the pin preview before the write
PIN_LOSING_WRITES: dict[str, str] = {
    "memory_app:note_archive": "a page asking first, when the note is pinned",
    "memory_app:notes_bulk": "the bulk action's confirm dialog (Archive)",
    "memory_app:archive_purge": "the purge's count-first dialog",
    "memory_app:maintenance_run_apply": "the dry run's plan page (archival, purge, decay, "
    "auto-consolidation)",
    "memory_app:audit_undo": "a page asking first, when the undo removes a pinned item",
    "memory_app:audit_batch_undo": "a page asking first, when the undo removes a pinned item",
    "memory_app:review_verdict": "the Review page, beside Merge and Keep the newer text",
    "facts_app:fact_delete": "the deletion's preview",
    "facts_app:pair_resolve": "the resolution's preview, in the pair's row",
    "facts_app:fact_edit": "the edit's preview (the facts its guard archives with it)",
    "facts_app:fact_new": "the addition's preview (the facts its guard archives with it)",
    "facts_app:fact_embed": "the embedding's preview (the facts its guard archives with it)",
    "facts_app:archive_restore": "the restore's preview (the facts its guard archives with it)",
}

# URL name -> why the write cannot lose a pinned recall
WRITES_KEEPING_PINS: dict[str, str] = {
    "memory_app:note_create": "adds a note",
    "memory_app:note_edit": "changes a note's text or importance (not counted, see above)",
    "memory_app:note_keep": "keeps a note from archival",
    "memory_app:note_promote": "copies a note into core.md; the note stays",
    "memory_app:archive_restore": "puts a note back",
    "memory_app:archive_restore_many": "puts notes back",
    "memory_app:review_scan": "finds pairs; writes no memory",
    "memory_app:review_back": "moves back in the review queue",
    "memory_app:core_item_add": "core.md is not a memory with pins",
    "memory_app:core_item_remove": "core.md is not a memory with pins",
    "memory_app:working_item_remove": "working memory is not a memory with pins",
    "memory_app:working_item_edit": "working memory is not a memory with pins",
    "memory_app:candidate_verdict": "a promotion candidate's verdict; the note stays",
    "memory_app:maintenance_start": "a destructive job starts as a dry run, whose plan page "
    "shows the preview before Apply",
    "memory_app:maintenance_run_cancel": "stops a run",
    "memory_app:maintenance_run_undo": "puts back what a run took out or changed (no run "
    "restores or adds items); one that would remove a pinned item asks first all the same",
    "facts_app:contradiction_verdict": "remembers a verdict on a pair; writes no fact",
    "memory_app:maintenance_schedule": "a scheduled plan that would lose a pin waits for a "
    "curator instead of applying (schedules.py)",
    "facts_app:vanished_scan": "finds facts the agent lost; writes no fact",
    "graph_app:edit": "the graph is not a memory with pins",
    "graph_app:merge": "the graph is not a memory with pins",
    "graph_app:delete": "the graph is not a memory with pins",
    "graph_app:relationship_change": "the graph is not a memory with pins",
    "graph_app:duplicates_verdict": "the graph is not a memory with pins",
    "recall:run": "runs the memory tests",
    "recall:run_cancel": "stops a memory-tests run",
    "recall:pin": "adds a pin",
    "recall:import": "adds pins; the pins there already are left as they are",
    "recall:unpin": "removes a pin on purpose: the curator's own choice, undoable",
    "backup:export": "writes a file",
    "backup:upload": "keeps a file and previews it",
    "backup:import": "writes only what is missing: the items there already are left as "
    "they are (not counted: the items it adds, see above)",
    "api_tokens": "an API token",
    "api_token_revoke": "an API token",
}

# The API's writes, by "METHOD /api/path" (the NinjaAPI's routes; a GET writes nothing).
# Each one that can lose a pinned recall answers 409 ``would_lose_pins`` naming the pins
# before it writes, unless ``confirm_lost_pins=true`` (:mod:`qqweb.recall.lost_pins`);
# then its audit events say it was confirmed. Route -> what it loses a pin by.
_JOB_START = (
    "started with dry_run false, applies its plan in the worker: a plan that would lose a "
    "pin applies nothing and waits for review, naming the pins, unless confirm_lost_pins"
)
API_PIN_LOSING_WRITES: dict[str, str] = {
    "DELETE /api/notes/{note_id}": "archives the note",
    "POST /api/notes/bulk": "an archive archives the notes (the other actions keep them)",
    "POST /api/archive/purge": "drops the archive line a merged, pinned note is followed by "
    "(its dry run reports the pins)",
    "POST /api/audit/{event_id}/undo": "an undo removing an item (a restore's, an addition's)",
    "POST /api/audit/batches/{batch_id}/undo": "an undo removing items",
    "POST /api/maintenance/runs/{run_id}/apply": "applies a plan (archival, purge, decay, "
    "auto-consolidation): 409 before the run starts; the apply's own audit events are the "
    "worker's",
    "POST /api/maintenance/runs/{run_id}/undo": "an undo removing items: 409 before the run starts",
    # a job's start: its run plans first; a plan losing a pin waits for review instead
    # of 409 (the check is the worker's, on the plan it makes), unless confirmed
    "POST /api/maintenance/archival": _JOB_START,
    "POST /api/maintenance/archive_purge": _JOB_START,
    "POST /api/maintenance/decay": _JOB_START,
    "POST /api/maintenance/auto_consolidation": _JOB_START,
    "POST /api/duplicates/{pair_id}/verdict": "a merge or a supersede archives one note of "
    "the pair (a pin on it follows to the survivor, lost when that is not recalled)",
    "DELETE /api/facts/{fact_id}": "archives the fact (and the facts its guard archives)",
    "POST /api/facts/{fact_id}/delete": "the same deletion, its options in a body",
    "POST /api/facts/next-start/resolve": "archives one or both facts of the pair",
    "PATCH /api/facts/{fact_id}": "the facts its guard archives with the edit",
    "POST /api/facts": "the facts its guard archives with the addition",
    "POST /api/facts/{fact_id}/embed": "the facts its guard archives with the embedding",
    "POST /api/facts/archive/{archive_id}/restore": "the facts its guard archives with the restore",
}

# "METHOD /api/path" -> why the write cannot lose a pinned recall
API_WRITES_KEEPING_PINS: dict[str, str] = {
    "POST /api/notes": "adds a note",
    "POST /api/notes/search": "a search; writes nothing",
    "PATCH /api/notes/{note_id}": "changes a note's text or importance (not counted, see above)",
    "POST /api/archive/{note_id}/restore": "puts a note back",
    "POST /api/core/promote": "copies a note into core.md; the note stays",
    "POST /api/core/candidates/{note_id}/reject": "a promotion candidate's verdict",
    "POST /api/retrieval/preview": "a preview; writes nothing",
    "POST /api/maintenance/runs/{run_id}/cancel": "stops a run",
    "POST /api/maintenance/dedup_scan": "finds pairs; writes no memory",
    "POST /api/maintenance/promotion_scan": "finds promotion candidates; the notes stay",
    "POST /api/maintenance/reembed": "gives notes vectors (not counted: an order it moves)",
    "POST /api/maintenance/vector_index_rebuild": "rebuilds qqweb's own index of the vectors",
    "POST /api/maintenance/graph_orphan_scan": "the graph is not a memory with pins",
    "POST /api/maintenance/graph_reembed": "the graph is not a memory with pins",
    "POST /api/maintenance/{job}": "an unknown job: answers 404, writes nothing",
    "POST /api/duplicates/scan": "finds pairs; writes no memory",
    "POST /api/duplicates/{pair_id}/preview": "a preview; writes nothing",
    "POST /api/duplicates/back": "moves back in the review queue (undoes a verdict: puts a "
    "note back)",
    "POST /api/duplicates/{pair_id}/suggestion": "an LLM's suggestion; writes nothing",
    "POST /api/facts/vanished/scan": "finds facts the agent lost; writes no fact",
    "POST /api/facts/contradictions/verdict": "remembers a verdict on a pair; writes no fact",
    "PATCH /api/graph/entities/{label}/{path:name}": "the graph is not a memory with pins",
    "DELETE /api/graph/entities/{label}/{path:name}": "the graph is not a memory with pins",
    "POST /api/graph/entities/search": "a search; writes nothing",
    "POST /api/graph/entities/merge": "the graph is not a memory with pins",
    "PATCH /api/graph/relationships": "the graph is not a memory with pins",
    "DELETE /api/graph/relationships": "the graph is not a memory with pins",
    "POST /api/graph/duplicates/verdict": "the graph is not a memory with pins",
    "POST /api/backup/exports": "writes a file",
    "POST /api/backup/uploads": "keeps a file",
    "POST /api/backup/imports": "writes only what is missing (not counted: the items it adds)",
    "POST /api/memory-tests/pins": "adds a pin",
    "DELETE /api/memory-tests/pins/{pin_id}": "removes a pin on purpose: undoable",
    "POST /api/memory-tests/imports": "adds pins",
    "POST /api/memory-tests/runs": "runs the memory tests",
    "POST /api/memory-tests/jobs/{job_id}/cancel": "stops a memory-tests run",
}
