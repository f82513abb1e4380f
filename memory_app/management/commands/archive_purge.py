from memory_app.management.jobcommand import JobCommand


class Command(JobCommand):
    kind = "archive_purge"
    params = (("days", int, "drop lines older than this (QQ_ARCHIVE_RETENTION_DAYS)"),)
