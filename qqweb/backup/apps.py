from django.apps import AppConfig


class BackupAppConfig(AppConfig):
    name = "qqweb.backup"
    label = "backup"
    verbose_name = "Backup and restore"

    def ready(self) -> None:
        from qqweb.backup.services import BACKUP_JOBS  # services import models: after populate
        from qqweb.jobs.registry import register_job

        for job in BACKUP_JOBS:
            register_job(job)
