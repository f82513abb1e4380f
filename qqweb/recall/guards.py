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
