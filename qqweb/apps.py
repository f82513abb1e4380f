from django.apps import AppConfig


class QqwebConfig(AppConfig):
    name = "qqweb"
    verbose_name = "qqweb"

    def ready(self) -> None:
        from qqweb import celery  # noqa: F401 - the Celery app, current for every task sent
        from qqweb.lib import security  # noqa: F401 - registers the deploy checks
