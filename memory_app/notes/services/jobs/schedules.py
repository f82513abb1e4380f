"""The beat schedule: the defaults bootstrap creates, the page's (audited) edits, and what
a scheduled run of a destructive job does.

Nothing destructive runs unreviewed by default: a scheduled decay, archival, archive
purge or auto-consolidation is a dry run that keeps its plan and waits for an admin to
apply it (the Overview and the Jobs page say so). An admin may opt a schedule into
applying its plan on its own (``apply`` in the beat entry's kwargs; the edit is audited
and undoable); even then a plan that would change more than QQ_SCHEDULE_MAX_SHARE of the
notes (or of the archive's lines, for a purge) stops and waits for review, and so does a
plan that would lose a pinned recall (a memory test that passes now), whatever the
schedule's setting."""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django_celery_beat.models import CrontabSchedule, PeriodicTask
from django_celery_beat.validators import crontab_validator

from memory_app.notes.errors import InvalidSchedule, ScheduleNotFound
from memory_app.notes.selectors.plan_effects import run_plan_effect
from qqweb.audit.errors import UndoRefused
from qqweb.audit.services import audit_begin, audited
from qqweb.jobs.errors import UnknownJob
from qqweb.jobs.models import Run
from qqweb.jobs.registry import JOBS
from qqweb.jobs.runner import job_apply_plan, job_create
from qqweb.lib.actors import Actor

DEFAULT_SCHEDULES = (  # kind, minute, hour, day_of_week
    ("decay", "0", "3", "*"),
    ("dedup_scan", "30", "3", "*"),
    ("archival", "0", "4", "0"),
    ("archive_purge", "30", "4", "0"),
)
SCHEDULER = Actor.job("schedule")
SCHEDULED_TASK = "memory_app.scheduled_job"


def schedules_ensure() -> int:
    """The default schedule (daily decay and dedup scan, weekly archival and purge), in
    django-celery-beat's tables where the Jobs page edits it; none applies its plan
    on its own. Existing entries are left as the admin set them."""
    created = 0
    for kind, minute, hour, day_of_week in DEFAULT_SCHEDULES:
        name = f"qqweb: {JOBS[kind].title}"
        if PeriodicTask.objects.filter(name=name).exists():
            continue
        crontab, _ = CrontabSchedule.objects.get_or_create(
            minute=minute, hour=hour, day_of_week=day_of_week, day_of_month="*", month_of_year="*"
        )
        PeriodicTask.objects.create(
            name=name, task=SCHEDULED_TASK, crontab=crontab, kwargs=json.dumps({"kind": kind})
        )
        created += 1
    return created


def schedule_kwargs(task: PeriodicTask) -> dict[str, Any]:
    try:
        kwargs = json.loads(task.kwargs or "{}")
    except ValueError:
        return {}
    return kwargs if isinstance(kwargs, dict) else {}


def _state(task: PeriodicTask) -> dict[str, Any]:
    crontab = task.crontab
    return {
        "task_id": task.pk,
        "minute": crontab.minute if crontab else "",
        "hour": crontab.hour if crontab else "",
        "day_of_week": crontab.day_of_week if crontab else "",
        "enabled": task.enabled,
        "apply": bool(schedule_kwargs(task).get("apply")),
    }


def _write(task: PeriodicTask, state: dict[str, Any]) -> dict[str, Any]:
    crontab, _ = CrontabSchedule.objects.get_or_create(
        minute=state["minute"],
        hour=state["hour"],
        day_of_week=state["day_of_week"],
        day_of_month="*",
        month_of_year="*",
    )
    kwargs = schedule_kwargs(task)
    kwargs["apply"] = bool(state["apply"])
    if not kwargs["apply"]:
        kwargs.pop("apply")
    task.crontab, task.enabled, task.kwargs = crontab, bool(state["enabled"]), json.dumps(kwargs)
    task.save()
    return _state(task)


def schedule_update(
    *,
    actor: Actor,
    task_id: int,
    minute: str,
    hour: str,
    day_of_week: str,
    enabled: bool,
    apply: bool = False,
) -> PeriodicTask:
    """Change a schedule's crontab, whether it is on, and whether its plans are applied
    on their own (only a destructive job's; up to QQ_SCHEDULE_MAX_SHARE); audited."""
    try:
        crontab_validator(f"{minute} {hour} * * {day_of_week}")
    except Exception as e:  # the validator raises ValueError or ValidationError
        raise InvalidSchedule("schedule", f"not a valid crontab: {e}") from e
    task = PeriodicTask.objects.filter(pk=task_id, task=SCHEDULED_TASK).first()
    if task is None:
        raise ScheduleNotFound(task_id)
    kind = str(schedule_kwargs(task).get("kind", ""))
    if apply and (kind not in JOBS or JOBS[kind].apply is None):
        raise InvalidSchedule("apply", f"{kind or 'this job'} has no plan to apply: it always runs")
    before = _state(task)
    after = {
        "task_id": task.pk,
        "minute": minute,
        "hour": hour,
        "day_of_week": day_of_week,
        "enabled": enabled,
        "apply": apply,
    }
    event = audit_begin(actor, "schedule.update", "schedule", str(task.pk), before, None)
    audited(event, lambda: _write(task, after))
    return task


def _undo_schedule_update(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    task = PeriodicTask.objects.filter(task=SCHEDULED_TASK, pk=after.get("task_id")).first()
    if task is None:
        raise UndoRefused("the schedule is gone")
    if _state(task) != after:
        raise UndoRefused("the schedule was changed again since")
    return _write(task, before)


# --- what beat starts -------------------------------------------------------------------------


def scheduled_run_create(*, kind: str) -> Run:
    """The run a schedule starts: a dry run keeping its plan for a destructive job (the
    plan waits for review), a run for the others (the dedup scan only fills the queue)."""
    if kind not in JOBS:
        raise UnknownJob(list(JOBS))
    return job_create(kind=kind, actor=SCHEDULER, dry_run=JOBS[kind].apply is not None)


def plan_changes(run: Run) -> tuple[int, int]:
    """(changes, whole) of a finished dry run: the notes (or archive lines) its plan
    changes, of how many. A merge changes both notes of its pair."""
    stats = run.stats or {}
    whole = int(stats.get("of_lines" if run.kind == "archive_purge" else "of_notes") or 0)
    size = len(run.plan or [])
    return (2 * size if run.kind == "auto_consolidation" else size), whole


def scheduled_plan_settle(*, run_id: int, apply: bool) -> Run | None:
    """After a scheduled dry run: the run that applies its plan when the schedule is opted
    in, the plan changes at most QQ_SCHEDULE_MAX_SHARE of the whole and loses no pinned
    recall; else None, and the plan waits for an admin (the run's ``waits`` says why,
    when it was opted in)."""
    run = Run.objects.filter(pk=run_id).first()
    if run is None or not apply or run.status != Run.DONE or run.plan is None:
        return None
    changes, whole = plan_changes(run)
    if changes == 0:
        return None
    cap = float(settings.QQ_SCHEDULE_MAX_SHARE)
    # every reason it waits, said together: the cap and the pins it would lose
    reasons = []
    if changes > cap * whole:
        what = "archive lines" if run.kind == "archive_purge" else "notes"
        share = f"{100 * changes / whole:.1f}%" if whole else "all"
        reasons.append(
            f"it would change {changes} of {whole} {what} ({share}), more than "
            f"QQ_SCHEDULE_MAX_SHARE ({100 * cap:g}%) allows on a schedule"
        )
    pins = _pins_lost(run)
    if pins:
        reasons.append(pins)
    if reasons:
        _waits(run, ", and ".join(reasons) + ": it waits for review")
        return None
    return job_apply_plan(actor=SCHEDULER, run_id=run.pk)


def _pins_lost(run: Run) -> str:
    """Why the plan must wait for its effect on the pinned recalls, or ""."""
    effect = run_plan_effect(run)
    if effect is None:
        return ""
    if effect.error:
        return f"its effect on the pinned recalls could not be checked ({effect.error})"
    if not effect.lost:
        return ""
    lost = len(effect.lost)
    return f"it would lose {lost} pinned recall{'' if lost == 1 else 's'}"


def _waits(run: Run, reason: str) -> None:
    run.stats = {**run.stats, "waits": reason}
    run.save(update_fields=["stats"])


UNDO_HANDLERS = {"schedule.update": _undo_schedule_update}
