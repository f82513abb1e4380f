from typing import Any

from django.apps import AppConfig

from qqweb.audit.registry import register_settle, register_target_pages, register_undo

UNDO_REMOVES = {
    "note.restore": "archived again by this undo",
    "note.create": "removed by this undo",
}


def _after_note(before: Any, after: Any) -> list[str]:
    """The note an action wrote (its ``after``), which its undo removes."""
    return [str(after["note_id"])] if isinstance(after, dict) and after.get("note_id") else []


class MemoryAppConfig(AppConfig):
    name = "memory_app.notes"
    label = "memory_app"
    verbose_name = "Notes memory"

    def ready(self) -> None:
        # services import models: after populate
        from memory_app.notes.selectors.audit_targets import note_target_pages, run_target_pages
        from memory_app.notes.selectors.links import NotesMentionsReader
        from memory_app.notes.selectors.recall import notes_recall
        from memory_app.notes.services import UNDO_HANDLERS, UNDO_ROLES
        from memory_app.notes.services.jobs import NOTES_JOBS
        from memory_app.notes.services.settle import SETTLE_CHECKS
        from memory_app.notes.source import notes_source
        from qqweb.jobs.registry import register_job
        from qqweb.lib.links import register_notes_reader
        from qqweb.lib.sources import register_source
        from qqweb.recall.engines import register_recall_engine
        from qqweb.recall.undo_effects import register_undo_removals

        for action, handler in UNDO_HANDLERS.items():
            register_undo(action, handler, UNDO_ROLES[action])
        for action, check in SETTLE_CHECKS.items():
            register_settle(action, check)
        register_source("notes", notes_source)
        # the Audit log's targets: a note's page while it exists; a job's run page
        for target_type in ("note", "archive"):
            register_target_pages(target_type, note_target_pages)
        for target_type in ("notes", "graph"):  # the graph's runs are on the same pages
            register_target_pages(target_type, run_target_pages)
        register_notes_reader(NotesMentionsReader())
        for job in NOTES_JOBS:
            register_job(job)
        register_recall_engine("notes", notes_recall)
        # the undos that take a note out of the agent's memory again: their preview
        # names the pins they would lose (qqweb.recall.undo_effects)
        for action, why in UNDO_REMOVES.items():
            register_undo_removals(action, "notes", _after_note, why)
