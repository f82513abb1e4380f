"""Reads for the Jobs page: each job with its last run, run history, schedules.

The catalogue of jobs is the jobs app's registry (``qqweb.jobs.registry.JOBS``); the
caller passes it in, so reads do not depend on writes."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any, Protocol

from django.core.cache import cache
from django.db.models import Q
from django_celery_beat.models import PeriodicTask

from memory_app.notes.job_plans import ITEM_TYPES, DecayItem, PlanItem, plan_from_json
from memory_app.notes.stores import notes_store
from qqweb.audit.models import AuditEvent
from qqweb.jobs.errors import RunRefused
from qqweb.jobs.models import Run
from qqweb.jobs.plans import plan_length, plan_slice


class JobInfo(Protocol):
    @property
    def kind(self) -> str: ...

    @property
    def title(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def apply(self) -> object: ...  # a destructive job's plan apply, else None


@dataclass(frozen=True)
class ScheduleRow:
    task: PeriodicTask
    kind: str
    plans: bool  # a destructive job's schedule: its runs plan, and wait unless ``apply``
    apply: bool  # opted into applying its plans on its own (up to QQ_SCHEDULE_MAX_SHARE)


@dataclass
class JobRow:
    job: JobInfo
    last: Run | None


DECAY_VS_AGENT = (
    "qqweb's decay pass honours each note's stored decay rate (the agent's notes agent "
    "writes rates from 0.005 to 0.05 on purpose) and starts again from the undecayed "
    "importance, so running it twice changes nothing. The agent's own decay command uses "
    "0.01 for every note and decays the stored value again each time it runs (it "
    "compounds); its low-importance archival and its deduplication also use 0.01. For "
    "some notes the two give another importance."
)


@dataclass(frozen=True)
class DecayComparison:
    """How many notes qqweb's decay and the agent's own command treat differently, as
    counted by a decay run (``run``; None when no run counted them yet)."""

    explanation: str
    run: Run | None = None
    scanned: int = 0
    differs: int = 0
    by_rate: int = 0
    by_compounding: int = 0


def decay_agent_comparison(*, run: Run | None = None) -> DecayComparison:
    """The counts of ``run``, or of the latest finished decay run (dry or not)."""
    if run is None:
        run = (
            Run.objects.filter(kind="decay", status=Run.DONE, stats__has_key="agent_differs")
            .order_by("-created_at", "-pk")
            .first()
        )
    stats = run.stats if run is not None and isinstance(run.stats, dict) else {}
    if "agent_differs" not in stats:
        return DecayComparison(DECAY_VS_AGENT)
    return DecayComparison(
        DECAY_VS_AGENT,
        run=run,
        scanned=int(stats.get("scanned") or 0),
        differs=int(stats["agent_differs"]),
        by_rate=int(stats.get("agent_differs_rate") or 0),
        by_compounding=int(stats.get("agent_differs_compounding") or 0),
    )


def jobs_overview(*, jobs: Iterable[JobInfo], history: int = 30) -> dict[str, Any]:
    jobs = list(jobs)
    planned = {job.kind for job in jobs if job.apply is not None}
    runs = list(Run.objects.defer("plan").exclude(QUIET_AUTOMATIC_SCANS)[:history])
    rows = [JobRow(job, Run.objects.defer("plan").filter(kind=job.kind).first()) for job in jobs]
    schedules = []
    for task in (
        PeriodicTask.objects.filter(task="memory_app.scheduled_job")
        .select_related("crontab")
        .order_by("name")
    ):
        kwargs = _kwargs(task.kwargs)
        kind = str(kwargs.get("kind", ""))
        schedules.append(ScheduleRow(task, kind, kind in planned, bool(kwargs.get("apply"))))
    return {
        "jobs": rows,
        "runs": runs,
        "schedules": schedules,
        "active": [r for r in runs if r.status in (Run.QUEUED, Run.RUNNING)],
        "decay_comparison": decay_agent_comparison(),
        "quiet_scans": quiet_scans(
            jobs, since=runs[-1].created_at if len(runs) == history else None
        ),
    }


# Beat's vanished-facts scan (job:facts-scan, every QQ_FACTS_SCAN_INTERVAL_S) that finished
# and found nothing (no new fact, none vanished): folded into one line above the history,
# so the 30 runs shown are the curators' own and the scans that found something or failed.
QUIET_AUTOMATIC_SCANS = Q(
    kind="vanished_scan",
    started_by="job:facts-scan",
    status=Run.DONE,
    stats__new=0,
    stats__vanished=0,
)


@dataclass(frozen=True)
class QuietScans:
    title: str
    count: int  # since the oldest run shown when the history is full, else all of them
    last: Run


def quiet_scans(jobs: Iterable[JobInfo], *, since: Any = None) -> QuietScans | None:
    """The automatic scans that found nothing, as one line: how many (counted over the
    history's own time span, by the indexed ``kind``) and the latest."""
    quiet = Run.objects.defer("plan").filter(QUIET_AUTOMATIC_SCANS)
    last = quiet.first()
    if last is None:
        return None
    if since is not None:
        quiet = quiet.filter(created_at__gte=since)
    titles = {job.kind: job.title for job in jobs}
    return QuietScans(titles.get("vanished_scan", "Vanished-facts scan"), quiet.count(), last)


def _kwargs(text: str | None) -> dict[str, Any]:
    try:
        kwargs = json.loads(text or "{}")
    except ValueError:
        return {}
    return kwargs if isinstance(kwargs, dict) else {}


# --- one run: its plan, what became of it -----------------------------------------------------

PLAN_ROWS = 200  # rows of a plan on one page of the run page

_PLAN_VERBS = {  # kind: (what the plan does, to what, the stat counting the whole)
    "archival": ("Archive", "notes", "of_notes"),
    "decay": ("Lower the stored importance of", "notes", "of_notes"),
    "archive_purge": ("Drop", "archive lines", "of_lines"),
    "auto_consolidation": ("Merge", "pairs of notes", "of_notes"),
}


@dataclass(frozen=True)
class RunDetail:
    run: Run
    plan_rows: list[PlanItem]
    plan_total: int
    pager: PlanPager
    plan_summary: str  # "Archive 352 of 500 notes (70%)"
    applied_by: Run | None  # the run that applies this dry run's plan
    undone_by: Run | None  # the latest run that undoes this one
    can_apply: bool
    can_undo: bool
    sample: list[dict[str, Any]]  # a run without a plan: its sample, as rows


def _sample_rows(stats: dict[str, Any]) -> list[dict[str, Any]]:
    """``stats["sample"]`` as rows: the note ids (linked when they are notes) and the
    rest in words (a pair's similarity, a value before and after)."""
    rows = []
    for item in stats.get("sample") or []:
        parts = list(item) if isinstance(item, list | tuple) else [item]
        ids = [str(p) for p in parts if isinstance(p, str)]
        numbers = [p for p in parts if isinstance(p, int | float) and not isinstance(p, bool)]
        detail = " -> ".join(f"{n:.3f}" if isinstance(n, float) else str(n) for n in numbers)
        rows.append(
            {"ids": ids, "notes": all(i.startswith("note_") for i in ids), "detail": detail}
        )
    return rows


def _decay_directions(plan: list[DecayItem]) -> tuple[int, int]:
    """(lowered, raised) importances of a decay plan: the pass starts again from the
    undecayed importance, so a note the agent's compounding decay or its reads left below
    its effective value is raised (0.375 -> 0.708)."""
    lower = sum(item.new < item.expected for item in plan)
    higher = sum(item.new > item.expected for item in plan)
    return lower, higher


def _kept_decay_directions(run: Run) -> tuple[int, int]:
    """A decay plan's (lowered, raised), counted over the whole plan once and kept in the
    cache: a finished run's plan never changes, and the run page's other pages need not
    read it again."""
    key = f"qqweb-decay-directions:{run.pk}:{run.created_at.timestamp()}"
    kept = cache.get(key)
    if kept is None:
        plan = Run.objects.filter(pk=run.pk).values_list("plan", flat=True).first() or []
        kept = _decay_directions(
            [i for i in plan_from_json(run.kind, plan) if isinstance(i, DecayItem)]
        )
        cache.set(key, kept, 24 * 3600)
    return int(kept[0]), int(kept[1])


def plan_summary(run: Run) -> str:
    """What the plan does, in words: "Archive 347 of 501 notes (69%)"; a decay that raises
    some importances says so ("Change the stored importance of 493 of 503 notes (98%):
    480 lower, 13 higher")."""
    if run.plan_size is None or run.kind not in _PLAN_VERBS:
        return ""
    verb, what, whole_key = _PLAN_VERBS[run.kind]
    count = run.plan_size
    whole = int((run.stats or {}).get(whole_key) or 0)
    if run.kind == "decay":
        lower, higher = _kept_decay_directions(run)
        if higher:
            share = f" of {whole}" if whole else ""
            percent = f" ({round(100 * count / whole)}%)" if whole else ""
            return (
                f"Change the stored importance of {count}{share} {what}{percent}: "
                f"{lower} lower, {higher} higher"
            )
    if run.kind == "auto_consolidation":
        share = (
            f" ({2 * count} of {whole} notes, {round(100 * 2 * count / whole)}%)" if whole else ""
        )
        return f"{verb} {count} {what}{share}"
    share = f" of {whole} {what} ({round(100 * count / whole)}%)" if whole else f" {what}"
    return f"{verb} {count}{share}"


def plan_page(*, run: Run, offset: int = 0, limit: int = PLAN_ROWS) -> tuple[int, list[PlanItem]]:
    """``(total, items)`` of a dry run's plan (the page and the API list them without
    their guards), each item's text read from the store where the plan did not keep one
    (decay). Only the page's items are read (sliced in the database: a page costs its
    rows, not the plan's size). Refused (RunRefused) for a run of a kind that keeps no
    plan."""
    if run.kind not in ITEM_TYPES:
        raise RunRefused(f"run {run.pk} is of a kind that keeps no plan")
    items = plan_from_json(run.kind, plan_slice(run_id=run.pk, offset=offset, limit=limit))
    missing = [i.note_id for i in items if not i.text]
    if missing:
        docs = notes_store().notes_by_ids(missing)
        items = [
            replace(i, text=docs[i.note_id].content[:200])
            if not i.text and i.note_id in docs
            else i
            for i in items
        ]
    return plan_length(run=run), items


@dataclass(frozen=True)
class PlanPager:
    """Where a page of a plan is: its rows ``first``-``last`` of ``total``, the page
    numbers around it, and the sizes of the pages before and after ("Next 200 →")."""

    page: int
    pages: int
    first: int
    last: int
    total: int
    size: int = PLAN_ROWS

    @property
    def previous(self) -> int | None:
        return self.page - 1 if self.page > 1 else None

    @property
    def next(self) -> int | None:
        return self.page + 1 if self.page < self.pages else None

    @property
    def next_size(self) -> int:
        return min(self.size, self.total - self.last)

    @property
    def numbers(self) -> list[int | None]:
        """The page numbers to link: the first, the last, and two around this one; None
        where some are left out (shown as "…")."""
        shown = sorted(
            {1, self.pages, *range(self.page - 2, self.page + 3)} & set(range(1, self.pages + 1))
        )
        numbers: list[int | None] = []
        for n in shown:
            if numbers and numbers[-1] is not None and n - numbers[-1] > 1:
                numbers.append(None)
            numbers.append(n)
        return numbers


def plan_pager(*, total: int, page: int, size: int = PLAN_ROWS) -> PlanPager:
    """The pager of page ``page`` (1-based) of a plan of ``total`` rows; refused
    (RunRefused) for a page the plan does not have."""
    pages = max(1, -(-total // size))
    if page < 1 or page > pages:
        raise RunRefused(f"the plan has no page {page}: it has {pages} of {size} rows")
    first = (page - 1) * size
    return PlanPager(page, pages, first + 1 if total else 0, min(total, first + size), total, size)


def run_detail(*, run: Run, has_plan_job: bool, page: int = 1) -> RunDetail:
    """A run as its page shows it: ``page`` (1-based) of its plan, its fate. ``run`` may
    come without its plan loaded (``defer("plan")``): only the page's rows are read."""
    # plan_size is written with the plan (qqweb.jobs.runs.run_finished): whether there is one
    has_plan = run.kind in ITEM_TYPES and (run.plan_size or 0) > 0
    pager = plan_pager(total=plan_length(run=run) if has_plan else 0, page=page)
    total, rows = (
        plan_page(run=run, offset=pager.first - 1, limit=PLAN_ROWS) if has_plan else (0, [])
    )
    # a failed or cancelled application can be applied again: what it did is skipped as gone
    applied_by = (
        run.applications.exclude(status__in=(Run.FAILED, Run.CANCELLED)).defer("plan").first()
    )
    undone_by = run.undo_runs.defer("plan").first()
    return RunDetail(
        run=run,
        plan_rows=rows,
        plan_total=total,
        pager=pager,
        plan_summary=plan_summary(run),
        applied_by=applied_by,
        undone_by=undone_by,
        can_apply=has_plan_job
        and run.dry_run
        and run.status == Run.DONE
        and run.plan_size is not None
        and applied_by is None,
        can_undo=not run.dry_run
        and run.kind != "undo"
        and AuditEvent.objects.filter(
            batch_id=run.batch_id, status=AuditEvent.DONE, undo_of__isnull=True
        ).exists()
        and run.status in (Run.DONE, Run.CANCELLED, Run.FAILED)
        and (undone_by is None or undone_by.status == Run.FAILED),
        sample=[] if run.plan_size is not None else _sample_rows(run.stats or {}),
    )
