from django.apps import AppConfig


class BackupAppConfig(AppConfig):
    name = "backup_app"
    verbose_name = "Backup and restore"
