from django.apps import AppConfig


class BackupAppConfig(AppConfig):
    name = "qqweb.backup"
    label = "backup"
    verbose_name = "Backup and restore"
