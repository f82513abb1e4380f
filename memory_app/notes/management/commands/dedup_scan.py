from qqweb.jobs.command import JobCommand


class Command(JobCommand):
    kind = "dedup_scan"
