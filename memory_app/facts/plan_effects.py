"""What the facts agent's next start would do to the pinned recalls of facts
(:func:`qqweb.recall.effects.plan_effect`, computed on the plan, no write).

At its start the agent hard-deletes the newer fact of every pair at cosine >= 0.95 and
keeps the older one (the anchor); qqweb's tracker then follows a pin on the deleted fact
to the anchor (``SeenFact.related_id``). So a deleted fact's pin is evaluated on the
anchor, and is lost only when the agent's three nearest facts for its question would not
include the anchor."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from memory_app.facts.lib.guard import WritePlan
from memory_app.facts.lib.rules import CleanupPlan
from memory_app.facts.lib.store import parse_fact_id
from qqweb.recall.effects import PlanEffect, plan_effect

# what a next-start pair's resolution archives: its anchor (the older fact), its newer one
RESOLVE_ARCHIVES = {
    "keep-older": ("deleted",),
    "keep-newer-text": ("deleted",),
    "delete-both": ("anchor", "deleted"),
}


def next_start_effect(plan: CleanupPlan) -> PlanEffect:
    removed: dict[str, str | None] = {d.deleted.hex_id: d.anchor.hex_id for d in plan.deletions}
    return plan_effect(
        "facts",
        removed,
        gone="deleted at the next start",
        kept="deleted at the next start as a duplicate of {}",
        subject="The next start",
    )


def write_effect(
    plan: WritePlan, *, removed: Iterable[str] = (), what: str = "write"
) -> PlanEffect:
    """What a write (``what``: "write", "deletion") would do to the pins: the facts it
    archives go, with no survivor (``removed``: a deletion's own fact; ``plan.archive_ids``:
    the facts its guard archives with it, so that the next start deletes nothing new).
    ``removed`` is read as the store reads an id: a 24-hex id in capitals names the fact
    its pins name in lower case."""
    return plan_effect(
        "facts",
        dict.fromkeys([*(str(parse_fact_id(i)) for i in removed), *plan.archive_ids]),
        gone=f"archived by this {what}",
        subject=f"This {what}",
    )


def resolve_effect(*, anchor_id: str, deleted_id: str, how: str, also: Iterable[str]) -> PlanEffect:
    """What resolving a next-start pair would do to the pins: the facts it archives (and
    ``also``, those its guard archives with it) are gone. Keeping the older fact, or
    giving it the newer text, archives the newer one, whose pins then follow it to the
    older fact (the facts engine's whereabouts); the older fact is evaluated on its text
    now. Deleting both, and the guard's archives, leave nothing to follow."""
    ids = {"anchor": anchor_id, "deleted": deleted_id}
    removed: dict[str, str | None] = dict.fromkeys(also)
    for key in RESOLVE_ARCHIVES.get(how, ()):
        followed = key == "deleted" and how in ("keep-older", "keep-newer-text")
        removed[ids[key]] = anchor_id if followed else None
    return plan_effect(
        "facts",
        removed,
        gone="archived by this resolution",
        kept="archived by this resolution, its text kept by {}",
        subject="This resolution",
    )


PinsOfPlan = Callable[[WritePlan], PlanEffect]  # a write's preview -> its effect on the pins


def deletion_effect(fact_id: str) -> PinsOfPlan:
    """A fact's deletion, for its page and its API alike: the fact and what the guard
    archives with it."""
    return lambda plan: write_effect(plan, removed=[fact_id], what="deletion")


def resolution_effect(*, anchor_id: str, deleted_id: str, how: str) -> PinsOfPlan:
    """A next-start pair's resolution, for its page and its API alike."""
    return lambda plan: resolve_effect(
        anchor_id=anchor_id, deleted_id=deleted_id, how=how, also=plan.archive_ids
    )
