"""Memory tests: pinned recalls ("when the agent is asked Q, it must recall this"), run
with each agent's own retrieval, and the effect of a curation plan on them."""

from django.apps import AppConfig


class RecallConfig(AppConfig):
    name = "qqweb.recall"
    label = "recall"
    verbose_name = "Memory tests"

    def ready(self) -> None:
        # services import models: after populate
        from qqweb.audit.registry import register_undo
        from qqweb.jobs.registry import register_job
        from qqweb.recall.jobs import MEMORY_TESTS_JOB
        from qqweb.recall.services import UNDO_HANDLERS, UNDO_ROLES

        for action, handler in UNDO_HANDLERS.items():
            register_undo(action, handler, UNDO_ROLES[action])
        register_job(MEMORY_TESTS_JOB)
