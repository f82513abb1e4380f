from django.apps import AppConfig

from qqweb.audit.registry import register_settle, register_undo


class MemoryAppConfig(AppConfig):
    name = "memory_app.notes"
    label = "memory_app"
    verbose_name = "Notes memory"

    def ready(self) -> None:
        # services import models: after populate
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

        for action, handler in UNDO_HANDLERS.items():
            register_undo(action, handler, UNDO_ROLES[action])
        for action, check in SETTLE_CHECKS.items():
            register_settle(action, check)
        register_source("notes", notes_source)
        register_notes_reader(NotesMentionsReader())
        for job in NOTES_JOBS:
            register_job(job)
        register_recall_engine("notes", notes_recall)
