from django.apps import AppConfig

from qqweb.audit.registry import register_settle, register_target_pages, register_undo


class GraphAppConfig(AppConfig):
    name = "graph_app"
    verbose_name = "Knowledge graph"

    def ready(self) -> None:
        from graph_app.selectors.audit_targets import entity_target_pages
        from graph_app.selectors.links import GraphEntitiesReader
        from graph_app.services import UNDO_HANDLERS  # services import models: after populate
        from graph_app.services.jobs import GRAPH_JOBS, JOB_UNDO_HANDLERS
        from graph_app.services.merge import SETTLE_CHECKS
        from qqweb.jobs.registry import register_job
        from qqweb.lib.links import register_entities_reader

        for action, handler in UNDO_HANDLERS.items():
            register_undo(action, handler, "curator")  # every graph curation is a curator's
        for action, handler in JOB_UNDO_HANDLERS.items():
            register_undo(action, handler, "admin")  # a job's changes: an admin's
        for job in GRAPH_JOBS:
            register_job(job)
        for action, check in SETTLE_CHECKS.items():
            register_settle(action, check)
        register_entities_reader(GraphEntitiesReader())
        register_target_pages("entity", entity_target_pages)  # the Audit log's targets
