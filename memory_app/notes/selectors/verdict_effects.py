"""What a Review verdict given over the API would do to the pinned recalls, before it is
given (its API asks first, :mod:`qqweb.recall.lost_pins`): the effect the Review page
shows beside its buttons (:func:`review_preview`), for the primary the verdict would
keep (without ``primary_id``, the agent's rule, as the merge decides it)."""

from __future__ import annotations

from memory_app.notes.lib.dedup.maths import choose_primary
from memory_app.notes.models import ReviewPair
from memory_app.notes.selectors.review import review_preview
from memory_app.notes.stores import notes_store
from qqweb.lib.errors import Refused
from qqweb.recall.effects import PlanEffect


def review_verdict_effects(
    *, pair_id: int, verdict: str, primary_id: str | None, content: str | None
) -> list[PlanEffect]:
    """A merge's or a supersede's effect on the pins (a pending pair's; none for the other
    verdicts, which keep both notes). A request the verdict refuses anyway (no such pair,
    decided already, a note gone) has none here: the verdict says why."""
    if verdict not in ("merge", "supersede"):
        return []
    pair = ReviewPair.objects.filter(pk=pair_id, status=ReviewPair.PENDING).first()
    if pair is None:
        return []
    if verdict == "merge" and primary_id is None:
        docs = notes_store().notes_by_ids([pair.note_a, pair.note_b])
        if pair.note_a not in docs or pair.note_b not in docs:
            return []
        primary_id = choose_primary(docs[pair.note_a], docs[pair.note_b])[0].note_id
    try:
        pins = review_preview(pair_id=pair_id, primary_id=primary_id, content=content).pins
    except Refused:
        return []
    effect = pins.merge if verdict == "merge" else pins.supersede
    return [effect] if effect is not None else []
