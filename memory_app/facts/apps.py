from typing import Any

from django.apps import AppConfig
from django.core import checks


class FactsAppConfig(AppConfig):
    """The second agent's facts store (seed 004): pages under ``/facts/``, API under
    ``/api/facts``. A Django app inside ``memory_app`` (the project's fixed top-level
    packages) with its own layers contract, so the notes' layers stay as they are."""

    name = "memory_app.facts"
    label = "facts"
    verbose_name = "Facts memory (second agent)"

    def ready(self) -> None:
        from memory_app.facts.audit_targets import fact_target_pages
        from memory_app.facts.recall import facts_recall
        from memory_app.facts.services import UNDO_HANDLERS, VANISHED_SCAN_JOB  # imports models
        from memory_app.facts.source import facts_source
        from qqweb.audit.registry import register_target_pages, register_undo
        from qqweb.jobs.registry import register_job
        from qqweb.lib.auth import CURATOR
        from qqweb.lib.sources import register_source
        from qqweb.recall.engines import register_recall_engine
        from qqweb.recall.undo_effects import register_undo_removals

        checks.register(facts_settings_check)
        register_source("facts", facts_source)
        register_target_pages("fact", fact_target_pages)  # the Audit log's targets
        # Every facts write (create, edit, delete, restore, embed, pair, verdict) is a
        # curator's action, so undoing it needs a curator too.
        for action, handler in UNDO_HANDLERS.items():
            register_undo(action, handler, CURATOR)
        register_job(VANISHED_SCAN_JOB)
        register_recall_engine("facts", facts_recall)
        for action in UNDO_HANDLERS:  # an undo takes out the facts the action added
            register_undo_removals(action, "facts", _facts_added, "removed by this undo")


def _facts_added(before: Any, after: Any) -> list[str]:
    """The facts an action inserted or restored (its steps), which its undo removes."""
    steps = after.get("steps", []) if isinstance(after, dict) else []
    return [str(s["id"]) for s in steps if s.get("op") in ("insert", "restore") and s.get("id")]


def facts_settings_check(**kwargs: Any) -> list[checks.CheckMessage]:
    from memory_app.facts.stores import facts_configuration_error

    error = facts_configuration_error()
    return [checks.Error(error, id="facts.E001")] if error else []
