from django.apps import AppConfig


class AuditConfig(AppConfig):
    name = "qqweb.audit"
    label = "audit"
    verbose_name = "Audit log"
