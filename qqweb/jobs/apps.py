from django.apps import AppConfig


class JobsConfig(AppConfig):
    name = "qqweb.jobs"
    label = "jobs"
    verbose_name = "Jobs and runs"

    def ready(self) -> None:
        # the undo of a run is a job of this app: it works on any run's audit batch
        from qqweb.jobs.registry import register_job
        from qqweb.jobs.undo import UNDO_JOB

        register_job(UNDO_JOB)
