from memory_app.notes.management.jobcommand import JobCommand


class Command(JobCommand):
    kind = "archive_purge"
