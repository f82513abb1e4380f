from memory_app.notes.management.jobcommand import JobCommand


class Command(JobCommand):
    kind = "graph_reembed"
