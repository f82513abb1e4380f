"""What the facts agent's next start would do to the pinned recalls of facts
(:func:`qqweb.recall.effects.plan_effect`, computed on the plan, no write).

At its start the agent hard-deletes the newer fact of every pair at cosine >= 0.95 and
keeps the older one (the anchor); qqweb's tracker then follows a pin on the deleted fact
to the anchor (``SeenFact.related_id``). So a deleted fact's pin is evaluated on the
anchor, and is lost only when the agent's three nearest facts for its question would not
include the anchor."""

from __future__ import annotations

from memory_app.facts.lib.rules import CleanupPlan
from qqweb.recall.effects import PlanEffect, plan_effect


def next_start_effect(plan: CleanupPlan) -> PlanEffect:
    removed: dict[str, str | None] = {d.deleted.hex_id: d.anchor.hex_id for d in plan.deletions}
    return plan_effect(
        "facts",
        removed,
        gone="deleted at the next start",
        kept="deleted at the next start as a duplicate of {}",
        subject="The next start",
    )
