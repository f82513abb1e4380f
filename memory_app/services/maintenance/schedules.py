"""The beat schedule: the defaults bootstrap creates, and the page's edits."""

from __future__ import annotations

import json

from django_celery_beat.models import CrontabSchedule, PeriodicTask
from django_celery_beat.validators import crontab_validator

from memory_app.memory import InvalidNote

from .registry import JOBS

DEFAULT_SCHEDULES = (  # kind, minute, hour, day_of_week
    ("decay", "0", "3", "*"),
    ("dedup_scan", "30", "3", "*"),
    ("archival", "0", "4", "0"),
    ("archive_purge", "30", "4", "0"),
)


def schedules_ensure() -> int:
    """The default schedule (daily decay and dedup scan, weekly archival and purge), in
    django-celery-beat's tables where the Maintenance page edits it. Existing entries are
    left as the admin set them."""
    created = 0
    for kind, minute, hour, day_of_week in DEFAULT_SCHEDULES:
        name = f"qqweb: {JOBS[kind].title}"
        if PeriodicTask.objects.filter(name=name).exists():
            continue
        crontab, _ = CrontabSchedule.objects.get_or_create(
            minute=minute, hour=hour, day_of_week=day_of_week, day_of_month="*", month_of_year="*"
        )
        PeriodicTask.objects.create(
            name=name,
            task="memory_app.scheduled_job",
            crontab=crontab,
            kwargs=json.dumps({"kind": kind}),
        )
        created += 1
    return created


def schedule_update(
    *, task_id: int, minute: str, hour: str, day_of_week: str, enabled: bool
) -> None:
    try:
        crontab_validator(f"{minute} {hour} * * {day_of_week}")
    except Exception as e:  # the validator raises ValueError or ValidationError
        raise InvalidNote("schedule", f"not a valid crontab: {e}") from e
    task = PeriodicTask.objects.filter(pk=task_id, task="memory_app.scheduled_job").first()
    if task is None:
        raise InvalidNote("schedule", f"there is no schedule {task_id}")
    crontab, _ = CrontabSchedule.objects.get_or_create(
        minute=minute, hour=hour, day_of_week=day_of_week, day_of_month="*", month_of_year="*"
    )
    task.crontab, task.enabled = crontab, enabled
    task.save()
