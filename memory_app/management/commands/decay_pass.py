from memory_app.management.jobcommand import JobCommand


class Command(JobCommand):
    kind = "decay"
