"""What a notes plan would do to the pinned recalls, before it applies
(:func:`qqweb.recall.effects.plan_effect`, computed on the plan, no write).

An archival plan takes its notes out of the agent's retrieval: each is removed with no
survivor. The other plans keep their notes retrievable or cannot lose a pin, and say
nothing here: a purge drops archive lines (an archived note is not retrieved already);
an auto-consolidation merges pairs whose survivor the merge picks when it applies (the
Review page's merge and supersede keep a survivor too, which holds the merged note's
text, so a pin follows it). A decay plan lowers importances, which the notes engine
cannot yet evaluate before the write."""

from __future__ import annotations

from qqweb.jobs.models import Run
from qqweb.recall.effects import PlanEffect, plan_effect

EFFECT_KINDS = {"archival": "archived"}  # kind: what its plan does to a note, in words


def run_plan_effect(run: Run) -> PlanEffect | None:
    """The effect on the pins of a dry run's plan, or None for a plan that cannot lose
    a pin (module docstring)."""
    if run.kind not in EFFECT_KINDS or not run.plan:
        return None
    removed: dict[str, str | None] = {str(item["note_id"]): None for item in run.plan}
    return plan_effect("notes", removed, action=EFFECT_KINDS[run.kind])
