"""What a notes plan would do to the pinned recalls, before it applies
(:func:`qqweb.recall.effects.plan_effect`, computed on the plan, no write).

An archival plan, and a bulk archive (its confirmation), take their notes out of the
agent's retrieval: each is removed with no survivor. The other plans say nothing here:
a purge drops archive lines (an archived note is not retrieved already); an
auto-consolidation merges pairs whose survivor the merge picks when it applies (the
Review page's merge and supersede keep a survivor too, which holds the merged note's
text, so a pin follows it); a decay lowers importances, which the notes engine cannot
evaluate before the write."""

from __future__ import annotations

from collections.abc import Iterable

from qqweb.jobs.models import Run
from qqweb.recall.effects import PlanEffect, plan_effect

EFFECT_KINDS = {"archival": "archived by this plan"}  # kind: what its plan does to a note


def run_plan_effect(run: Run) -> PlanEffect | None:
    """The effect on the pins of a dry run's plan, or None for a plan that cannot lose
    a pin (module docstring)."""
    if run.kind not in EFFECT_KINDS or not run.plan:
        return None
    return notes_removal_effect(
        (str(item["note_id"]) for item in run.plan), gone=EFFECT_KINDS[run.kind]
    )


def notes_removal_effect(note_ids: Iterable[str], *, gone: str) -> PlanEffect:
    """The effect on the pins of taking ``note_ids`` out of the agent's memory at once (a
    bulk archive): each is ``gone`` ("archived by this plan"), with no survivor."""
    return plan_effect("notes", dict.fromkeys(note_ids), gone=gone)
