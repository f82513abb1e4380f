from qqweb.jobs.command import JobCommand


class Command(JobCommand):
    kind = "vector_index_rebuild"
