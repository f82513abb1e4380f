from qqweb.jobs.command import JobCommand


class Command(JobCommand):
    kind = "archival"
