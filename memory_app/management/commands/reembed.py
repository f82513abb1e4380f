from memory_app.management.jobcommand import JobCommand


class Command(JobCommand):
    kind = "reembed"
    params = (("scope", str, "missing (default) or all"),)
