from qqweb.jobs.command import JobCommand


class Command(JobCommand):
    kind = "graph_reembed"
