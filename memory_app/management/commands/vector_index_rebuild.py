from memory_app.management.jobcommand import JobCommand


class Command(JobCommand):
    kind = "vector_index_rebuild"
