from memory_app.management.jobcommand import JobCommand


class Command(JobCommand):
    kind = "auto_consolidation"
    params = (
        ("threshold", float, "cosine threshold (QQ_DEDUP_THRESHOLD)"),
        ("force", bool, "run even below QQ_MAX_WORKING_NOTES"),
    )
