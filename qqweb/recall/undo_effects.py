"""What undoing actions would do to the pinned recalls, before the undo runs (no write).

Most undos put items back. Some take items out of the agent's memory again: undoing a
restore archives the note again, undoing an addition removes what was added (a note, a
fact). A pin on such an item passes now and fails once the undo is done, so the undo
shows the same preview as every other write that can lose a pin
(:func:`qqweb.recall.effects.plan_effect`, ``templates/_pins_lost.html``).

Each app says, per action, which items its undo removes
(:func:`register_undo_removals`, called from its ``AppConfig.ready``): the undo of
``note.restore`` removes the restored note, and so on. An action not registered removes
nothing when undone. Not counted: an undo that changes a text or an importance back (an
edit's, a decay's), which may move a pinned item down the agent's order."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from qqweb.audit.models import AuditEvent
from qqweb.audit.snapshots import from_json
from qqweb.recall.effects import PlanEffect, plan_effect

# (the event's before, its after) -> the ids of the items its undo removes
UndoRemovals = Callable[[Any, Any], Iterable[str]]

_removals: dict[str, tuple[str, UndoRemovals, str]] = {}


def register_undo_removals(action: str, source: str, removes: UndoRemovals, why: str) -> None:
    """Undoing ``action`` removes the items of ``source`` that ``removes`` names, each
    for the reason ``why`` ("archived again by this undo")."""
    _removals[action] = (source, removes, why)


def undo_effects(events: Iterable[AuditEvent]) -> list[PlanEffect]:
    """What undoing ``events`` at once would do to the pins, one effect per memory whose
    items the undo removes (empty: the undo removes nothing)."""
    removed: dict[str, dict[str, str]] = {}
    for event in events:
        known = _removals.get(event.action)
        if known is None:
            continue
        source, removes, why = known
        for item_id in removes(from_json(event.before), from_json(event.after)):
            removed.setdefault(source, {})[str(item_id)] = why
    return [
        plan_effect(source, dict.fromkeys(reasons), gone=reasons, subject="This undo")
        for source, reasons in sorted(removed.items())
    ]


def undo_loses_pins(effects: Iterable[PlanEffect]) -> bool:
    """Whether an undo must show its preview first: it loses a pin, or its effect on the
    pins is unknown (a store is down)."""
    return any(e.lost or e.error for e in effects)
