from qqweb.jobs.command import JobCommand


class Command(JobCommand):
    kind = "archive_purge"
