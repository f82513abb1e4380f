from memory_app.management.jobcommand import JobCommand


class Command(JobCommand):
    kind = "archival"
    params = (("threshold", float, "archive below this effective importance"),)
