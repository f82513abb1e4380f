"""A destructive job's run started with ``dry_run`` false (the API, a command): it plans
first and checks the plan's effect on the pinned recalls, as a scheduled run does.

The run makes its plan as a dry run would, then asks
:func:`~memory_app.notes.selectors.plan_effects.run_plan_effect` what the plan does to the
pins. A plan that would lose one (or whose effect is unknown: a store is down) applies
nothing unless the run was started with ``confirm_lost_pins=true``: the run ends as a dry
run whose plan waits for review, as a scheduled plan does (``stats.waits`` names the pins;
its page shows the pin preview and Apply; applying it goes through the apply route, which
asks first). Otherwise the run applies exactly the plan it checked (the job's ``apply``,
each item only if unchanged since), and, when it was confirmed over lost pins, each of
its audit events says which (``detail``). Its stats are the plan's with the apply's over
them (``archived``, ``changed_since_plan``...)."""

from __future__ import annotations

import dataclasses
from typing import Any

from memory_app.notes.selectors.plan_effects import run_plan_effect
from qqweb.jobs.models import Run
from qqweb.jobs.registry import Apply, Progress, Result, Work
from qqweb.lib.words import shortened
from qqweb.recall.effects import LostRecall, PlanEffect
from qqweb.recall.lost_pins import CONFIRM, pins_guarded

NAMED = 5  # the pins ``waits`` names; the plan's page and GET .../plan list them all


def pins_first(work: Work, apply: Apply) -> Work:
    """``work`` (the job: a dry run keeps its plan on the run) as the registry runs it: a
    dry run as it is, a run that applies planning first (module docstring)."""

    def run_it(run: Run, progress: Progress) -> Result:
        if run.dry_run or run.plan_of_id is not None:
            return work(run, progress)
        return _planned_first(run, progress, work, apply)

    run_it.__doc__ = work.__doc__
    return run_it


def _planned_first(run: Run, progress: Progress, work: Work, apply: Apply) -> Result:
    run.dry_run = True
    planned = _as_dict(work(run, progress))
    if run.plan is None:  # it made no plan (an auto-consolidation with too few notes)
        run.dry_run = False
        return planned
    plan = list(run.plan)
    effect = run_plan_effect(run) if plan else None
    found = [effect] if effect is not None and (effect.lost or effect.error) else []
    if found and not run.confirm_lost_pins:
        run.save(update_fields=["dry_run"])  # a plan waiting for review: a dry run's
        return {**planned, "waits": waits(found)}
    run.dry_run, run.plan, run.stats = False, None, planned  # the apply reads the plan's stats
    with pins_guarded(lambda: found, confirmed=True):
        applied = _as_dict(apply(run, plan, progress))
    return {**planned, **applied}


def waits(effects: list[PlanEffect]) -> str:
    """Why a run started with dry_run false applied nothing, naming the pins it would
    lose: "it would lose 1 pinned recall (“question” → “text” (id)): it waits for review"."""
    lost = [x for e in effects for x in e.lost]
    reasons = []
    if lost:
        n = len(lost)
        named = "; ".join(_named(x) for x in lost[:NAMED])
        more = f"; and {n - NAMED} more" if n > NAMED else ""
        reasons.append(f"it would lose {n} pinned recall{'' if n == 1 else 's'} ({named}{more})")
    reasons.extend(
        f"its effect on the pinned recalls could not be checked ({e.error})"
        for e in effects
        if e.error
    )
    return (
        ", and ".join(reasons) + ": it waits for review; nothing was applied (apply its plan, "
        f"or start the job again with {CONFIRM}=true)"
    )


def _named(lost: LostRecall) -> str:
    text = f"“{shortened(lost.item_text, 60)}” " if lost.item_text else ""
    return f"“{shortened(lost.query, 60)}” → {text}({lost.item_id}), {lost.reason}"


def _as_dict(result: Result) -> dict[str, Any]:
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        return dataclasses.asdict(result)
    return dict(result)  # type: ignore[arg-type]
