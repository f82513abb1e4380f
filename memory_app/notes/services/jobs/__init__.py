"""The notes jobs: each one a service that works in batches, honours a dry run, reports
progress, audits its changes with the job as actor under the run's batch id (so the whole
run can be undone from the audit log), and does nothing twice when run again.

A job function takes the run and a progress callback and returns its stats. The jobs are
registered with the jobs app (:mod:`qqweb.jobs`) by ``MemoryAppConfig.ready()``; the
worker's task, the jobs page, the API and the management commands all run them through
:func:`qqweb.jobs.runner.job_run`, which holds the job's lock while it runs. The beat
schedule of the jobs is :mod:`memory_app.notes.services.jobs.schedules`.
"""

from memory_app.notes.services.jobs import notes_jobs, schedules
from memory_app.notes.services.jobs.registry import NOTES_JOBS
from memory_app.notes.services.jobs.schedules import (
    DEFAULT_SCHEDULES,
    schedule_kwargs,
    schedule_update,
    scheduled_plan_settle,
    scheduled_run_create,
    schedules_ensure,
)

UNDO_HANDLERS = {
    **notes_jobs.UNDO_HANDLERS,
    **schedules.UNDO_HANDLERS,
}

__all__ = [
    "DEFAULT_SCHEDULES",
    "NOTES_JOBS",
    "UNDO_HANDLERS",
    "schedule_kwargs",
    "schedule_update",
    "scheduled_plan_settle",
    "scheduled_run_create",
    "schedules_ensure",
]
