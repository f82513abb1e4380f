"""What a notes plan would do to the pinned recalls, before it applies
(:func:`qqweb.recall.effects.plan_effect`, computed on the plan, no write).

An archival plan, and a bulk archive (its confirmation), take their notes out of the
agent's retrieval: each is removed with no survivor. A decay plan lowers stored
importances, and the agent leaves out a note whose effective importance (computed from
the stored one) is below ``QQ_MIN_RETRIEVAL_IMPORTANCE``: a pinned note the decay takes
below it is removed, with that reason. (A decay also raises some importances; a note it
raises back above the minimum may outrank a pin, which this does not count.)

A purge drops archive lines. An archived note is not retrieved already, but a merged
one is followed to the note that kept its text through its archive line ("Consolidated
with <id>"): a pin on a merged note whose line the purge drops loses that way, and the
pin fails. The purged ids are given as removed, with no survivor.

An auto-consolidation merges pairs: each pair's secondary goes, its primary (the higher
stored importance, as its apply chooses it) keeps its text, and a pin on the secondary
follows to it. It is lost when the primary is not recalled for its question: the agent
leaves it out (its effective importance, as now: the merge's bonus is not counted), or
its text does not answer it. The Review page's merge and supersede keep a survivor the
same way. With ``use_llm`` the merge writes a new text, embedded only when written: the
primary is evaluated on its text now."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings

from memory_app.notes.job_plans import DecayItem, PairItem, plan_from_json
from memory_app.notes.lib.dedup.maths import choose_primary
from memory_app.notes.lib.documents import effective_importance, utcnow_naive
from memory_app.notes.stores import notes_store
from qqweb.jobs.models import Run
from qqweb.lib.errors import QQError
from qqweb.recall.effects import PlanEffect, pinned_holders, plan_effect
from qqweb.recall.models import Pin

ARCHIVED = "archived by this plan"
ARCHIVED_BY_ARCHIVE = "archived by this archive"  # a note's own Archive, page or API
PURGED = (
    "its archive line is dropped by this plan, and with it the way to the note that kept its text"
)


def run_plan_effect(run: Run) -> PlanEffect | None:
    """The effect on the pins of a dry run's plan, or None for a plan that cannot lose
    a pin (module docstring)."""
    if not run.plan:
        return None
    if run.kind == "archival":
        return notes_removal_effect((str(item["note_id"]) for item in run.plan), gone=ARCHIVED)
    if run.kind == "archive_purge":
        return purge_effect([str(item["note_id"]) for item in run.plan])
    if run.kind == "auto_consolidation":
        return consolidation_effect(
            [i for i in plan_from_json(run.kind, run.plan) if isinstance(i, PairItem)]
        )
    if run.kind == "decay":
        return decay_effect(
            [i for i in plan_from_json(run.kind, run.plan) if isinstance(i, DecayItem)]
        )
    return None


def notes_removal_effect(
    note_ids: Iterable[str], *, gone: str, subject: str = "This plan"
) -> PlanEffect:
    """The effect on the pins of taking ``note_ids`` out of the agent's memory at once (a
    bulk archive, a note's Archive): each is ``gone`` ("archived by this plan"), with no
    survivor; ``subject`` names the write in the summary."""
    return plan_effect("notes", dict.fromkeys(note_ids), gone=gone, subject=subject)


def purge_effect(line_ids: list[str], *, subject: str = "This plan") -> PlanEffect:
    """The pins a purge loses: a pinned note merged away whose archive line the purge
    drops (only the pinned ids of the plan are read; a note restored since, live again,
    keeps its pins). Not counted: a line further down a chain of merges (a pinned note
    merged into one that was merged again) whose drop breaks the chain."""
    pinned = set(Pin.objects.filter(source="notes").values_list("item_id", flat=True))
    ids = [i for i in line_ids if i in pinned]
    live = notes_store().notes_by_ids(ids) if ids else {}
    gone = PURGED.replace("this plan", subject.lower())
    return notes_removal_effect((i for i in ids if i not in live), gone=gone, subject=subject)


def consolidation_effect(plan: list[PairItem]) -> PlanEffect:
    """The pins an auto-consolidation loses: for each pair with a pinned note, the
    secondary merged into the primary its apply would choose (only those pairs' notes are
    read; a pair gone since is skipped by the apply, and here)."""
    try:
        holders = pinned_holders("notes")
    except QQError as e:
        return _unknown(e)
    pairs = [i for i in plan if i.note_id in holders or i.other_id in holders]
    docs = notes_store().notes_by_ids({n for i in pairs for n in (i.note_id, i.other_id)})
    removed: dict[str, str | None] = {}
    for item in pairs:
        if item.note_id in docs and item.other_id in docs:
            primary, secondary = choose_primary(docs[item.note_id], docs[item.other_id])
            removed[secondary.note_id] = primary.note_id
    return plan_effect("notes", removed)


def _unknown(e: QQError) -> PlanEffect:
    pins = Pin.objects.filter(source="notes").count()
    return PlanEffect("notes", pins, [], frozenset(), str(e))


def decay_effect(plan: list[DecayItem]) -> PlanEffect:
    """The pins a decay plan loses by taking their note's effective importance below
    ``QQ_MIN_RETRIEVAL_IMPORTANCE``: its new stored importance, decayed as the agent's
    retrieval decays it. Only the pinned notes of the plan are read."""
    minimum = float(settings.QQ_MIN_RETRIEVAL_IMPORTANCE)
    try:
        holders = pinned_holders("notes")
    except QQError as e:
        return _unknown(e)
    pinned = {item.note_id: item for item in plan if item.note_id in holders}
    docs = notes_store().notes_by_ids(list(pinned)) if pinned else {}
    now = utcnow_naive()
    reasons = {}
    for note_id, item in pinned.items():
        if note_id not in docs:
            continue
        after = effective_importance({**docs[note_id].to_document(), "importance": item.new}, now)
        if after < minimum:
            reasons[note_id] = (
                f"this decay takes its effective importance to {after:.2f}, below {minimum:g}"
            )
    return plan_effect("notes", dict.fromkeys(reasons), gone=reasons)


@dataclass(frozen=True)
class ReviewPinEffects:
    """A review pair's verdicts and the pins: ``merge`` as the preview shows it (into the
    chosen note, with the curator's text), ``supersede`` (keep the newer note and its
    text) when it is another plan than that merge."""

    merge: PlanEffect
    supersede: PlanEffect | None
    text_changed: bool  # the merge writes the curator's text: evaluated on the kept text now


def review_pin_effects(
    *, primary_id: str, secondary_id: str, newer_id: str | None, text_changed: bool
) -> ReviewPinEffects:
    """What the pair's merge and supersede would do to the pins. Both keep a survivor
    that holds the archived note's text (``Consolidated with ...``), so a pin on the
    archived note follows it and is lost only when the survivor is not recalled for its
    question: usually no loss. The survivor is evaluated on its text now: exact for a
    supersede and a merge keeping the primary's text, not for the curator's own text."""
    merge = plan_effect(
        "notes",
        {secondary_id: primary_id},
        kept="merged into {} by this merge",
        subject="This merge",
    )
    supersede = None
    if newer_id and (newer_id != primary_id or text_changed):
        older = secondary_id if newer_id == primary_id else primary_id
        supersede = plan_effect(
            "notes",
            {older: newer_id},
            kept="superseded by {}, whose text is kept",
            subject="Keeping the newer text",
        )
    return ReviewPinEffects(merge, supersede, text_changed)
