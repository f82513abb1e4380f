"""Maintenance jobs: each one a service that works in batches, honours a dry run, reports
progress, audits its changes with the job as actor under the run's batch id (so the whole
run can be undone from the audit log), and does nothing twice when run again.

A job function takes the run and a progress callback and returns its stats. The Celery
task, the maintenance page, the API and the management commands all start jobs through
:func:`job_run`, which holds the job's lock while it runs.
"""

from memory_app.notes.services.maintenance import graph_jobs, notes_jobs, schedules
from memory_app.notes.services.maintenance.common import (
    Job,
    JobBusy,
    NoPlanToApply,
    Progress,
    RunCancelled,
)
from memory_app.notes.services.maintenance.registry import (
    JOBS,
    RUN_KINDS,
    UNDO_KIND,
    job_of,
    plan_job,
)
from memory_app.notes.services.maintenance.runner import (
    job_apply_plan,
    job_create,
    job_run,
    job_undo_create,
)
from memory_app.notes.services.maintenance.schedules import (
    DEFAULT_SCHEDULES,
    schedule_kwargs,
    schedule_update,
    scheduled_plan_settle,
    scheduled_run_create,
    schedules_ensure,
)

UNDO_HANDLERS = {
    **notes_jobs.UNDO_HANDLERS,
    **graph_jobs.UNDO_HANDLERS,
    **schedules.UNDO_HANDLERS,
}

__all__ = [
    "DEFAULT_SCHEDULES",
    "JOBS",
    "RUN_KINDS",
    "UNDO_HANDLERS",
    "UNDO_KIND",
    "Job",
    "JobBusy",
    "NoPlanToApply",
    "Progress",
    "RunCancelled",
    "job_apply_plan",
    "job_create",
    "job_of",
    "job_run",
    "job_undo_create",
    "plan_job",
    "schedule_kwargs",
    "schedule_update",
    "scheduled_plan_settle",
    "scheduled_run_create",
    "schedules_ensure",
]
