from django.apps import AppConfig


class RecallConfig(AppConfig):
    name = "qqweb.recall"
    label = "recall"
    verbose_name = "Memory tests"
