"""Plain-data forms of the facts domain objects, shared by the API and its error
mapping (``qqweb/api.py`` answers an unconfirmed write with the preview)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from memory_app.facts.lib.guard import WritePlan
from memory_app.facts.lib.rules import Deletion
from memory_app.facts.plan_effects import PinsOfPlan, write_effect
from memory_app.facts.schemas import (
    AddVerdictOut,
    FactActionOut,
    PairOut,
    PlanOut,
    ResolutionOut,
)
from memory_app.facts.services.steps import FactAction
from qqweb.lib.judge.schemas import VerdictOut
from qqweb.lib.judge.verdicts import Verdict
from qqweb.recall.effect_schemas import effect_out
from qqweb.recall.lost_pins import pins_guarded
from qqweb.recall.models import Pin


def json_value(value: Any) -> Any:
    """A stored value as JSON can hold it (dates and ids as strings)."""
    if isinstance(value, dict):
        return {k: json_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_value(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, datetime):  # pymongo's are naive UTC: said with their offset
        return (value if value.tzinfo else value.replace(tzinfo=UTC)).isoformat()
    return str(value)


def pair_out(d: Deletion, said: Verdict | None = None) -> PairOut:
    return PairOut(
        verdict=None if said is None else VerdictOut.of(said),
        anchor_id=d.anchor.hex_id,
        anchor_content=d.anchor.text,
        anchor_timestamp=json_value(d.anchor.timestamp) if d.anchor.timestamp_is_date else None,
        deleted_id=d.deleted.hex_id,
        deleted_content=d.deleted.text,
        deleted_timestamp=(
            json_value(d.deleted.timestamp) if d.deleted.timestamp_is_date else None
        ),
        score=d.score,
        borderline=d.borderline,
        tie=d.tie,
    )


def plan_out(plan: WritePlan) -> PlanOut:
    add = plan.add
    return PlanOut(
        add=None
        if add is None
        else AddVerdictOut(
            refused=add.refused,
            best_id=add.best.hex_id if add.best else None,
            best_content=add.best.text if add.best else None,
            best_score=add.best_score,
            borderline=add.borderline,
        ),
        archive=plan.archive_ids,
        resolutions=[
            ResolutionOut(
                archive_id=r.archive.hex_id,
                archive_content=r.archive.text,
                keeps_written=r.keeps_written,
                pair=pair_out(r.pair),
            )
            for r in plan.resolutions
        ],
        new_deletions=[pair_out(d) for d in plan.new_deletions],
        next_start_deletions=len(plan.remaining.deletions),
    )


def guarded_action(
    write: Callable[[bool], FactAction],
    *,
    dry_run: bool,
    confirmed: bool,
    pins: PinsOfPlan = write_effect,
) -> FactActionOut:
    """A facts write of the API (``write(dry_run)``), asked first about the pins: a dry
    run answers its preview with its effect on them; a write that would lose a pinned
    recall answers 409 ``would_lose_pins`` and writes nothing, unless ``confirmed``
    (``confirm_lost_pins=true``: its audit events then say so)."""
    if dry_run:
        return action_out(write(True), pins)
    if not Pin.objects.filter(source="facts").exists():  # nothing to lose: no preview
        return action_out(write(False), pins)
    with pins_guarded(lambda: [pins(write(True).plan)], confirmed=confirmed):
        return action_out(write(False), pins)


def action_out(result: FactAction, pins: PinsOfPlan = write_effect) -> FactActionOut:
    """A write's answer; a preview (not applied) carries its effect on the pins
    (``pins``: by default what it archives, with no survivor)."""
    return FactActionOut(
        action=result.action,
        applied=result.applied,
        fact_id=result.fact_id,
        event_id=result.event_id,
        archived=result.archived,
        preview=plan_out(result.plan),
        pins=None if result.applied else effect_out(pins(result.plan)),
    )
