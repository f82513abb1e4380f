from django.apps import AppConfig


class QqwebConfig(AppConfig):
    name = "qqweb"
    verbose_name = "qqweb"
