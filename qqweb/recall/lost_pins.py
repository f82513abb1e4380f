"""The API's pin preview: what :func:`qqweb.recall.confirm.pins_first` is to the pages.

A write of the API that would lose a pinned recall (``qqweb.recall.guards``
:data:`~qqweb.recall.guards.API_PIN_LOSING_WRITES`) answers 409 ``would_lose_pins``
before anything is written, naming each pin it would lose (its question, the item's id
and text, why), unless the client sends ``confirm_lost_pins=true`` in the query string
(the same on every route: a DELETE has no body). A write whose effect on the pins is
unknown (a store is down) is refused the same way, saying so. Confirmed, it goes ahead
and each audit event it records says which pins it lost (``detail``). A write that
loses no pin goes ahead as before, the flag or not."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any

from pydantic import Field

from qqweb.audit.services import events_recorded
from qqweb.lib.errors import Conflict
from qqweb.lib.words import shortened
from qqweb.recall.effects import LostRecall, PlanEffect

CONFIRM = "confirm_lost_pins"  # the query parameter that confirms a write losing pins
CONFIRM_HELP = (
    "true: do the write even though it loses pinned recalls (else it answers 409 "
    "would_lose_pins naming them, and writes nothing)"
)


# the query parameter's type on every guarded route
ConfirmLostPins = Annotated[bool, Field(description=CONFIRM_HELP)]


def _named(lost: LostRecall) -> str:
    """ "“question” → “the item's text…” (its id)"."""
    if not lost.item_text:
        return f"“{lost.query}” → {lost.item_id}"
    return f"“{lost.query}” → “{shortened(lost.item_text, 60)}” ({lost.item_id})"


class WouldLosePins(Conflict):
    """A write of the API would lose pinned recalls (or its effect on them is unknown):
    409, nothing written; ``pins`` in the body names each, ``unknown`` why an effect is
    not known."""

    code = "would_lose_pins"

    def __init__(self, effects: list[PlanEffect]) -> None:
        self.lost = [(e.source, lost) for e in effects for lost in e.lost]
        self.unknown = [e.summary for e in effects if e.error]
        parts = []
        if self.lost:
            n = len(self.lost)
            named = "; ".join(_named(lost) for _, lost in self.lost[:5])
            more = f"; and {n - 5} more" if n > 5 else ""
            s = "" if n == 1 else "s"
            parts.append(f"this write loses {n} pinned recall{s}: {named}{more}")
        parts.extend(self.unknown)
        super().__init__(
            f"{'; '.join(parts)}. Nothing was written: send {CONFIRM}=true to do it all the same"
        )

    def details(self) -> dict[str, object]:
        return {
            "pins": [
                {
                    "source": source,
                    "pin_id": lost.pin_id,
                    "query": lost.query,
                    "item_id": lost.item_id,
                    "item_text": lost.item_text,
                    "why": lost.why,
                }
                for source, lost in self.lost
            ],
            "unknown": self.unknown,
            "confirm": CONFIRM,
        }


def confirmed_detail(effects: Iterable[PlanEffect]) -> str:
    """What the audit events of a confirmed write say ("" when it lost no pin)."""
    lost = [lost for e in effects for lost in e.lost]
    unknown = [e.summary for e in effects if e.error]
    if not lost and not unknown:
        return ""
    parts = []
    if lost:
        s = "" if len(lost) == 1 else "s"
        parts.append(
            f"confirmed ({CONFIRM}) although it loses {len(lost)} pinned recall{s}: "
            + "; ".join(_named(x) for x in lost[:5])
            + (f"; and {len(lost) - 5} more" if len(lost) > 5 else "")
        )
    parts.extend(f"confirmed ({CONFIRM}): {u}" for u in unknown)
    return "; ".join(parts)[:2000]


@contextmanager
def pins_guarded(
    effects: Callable[[], Iterable[PlanEffect]], *, confirmed: bool
) -> Iterator[list[Any]]:
    """Around one write of the API: raises :class:`WouldLosePins` first when ``effects``
    (computed before the write, no write of their own) lose a pin or are unknown and the
    write is not ``confirmed``; else runs the block, and, when it was confirmed over a
    lost pin, writes so in the ``detail`` of each audit event the block recorded."""
    found = [e for e in effects() if e.lost or e.error]
    if found and not confirmed:
        raise WouldLosePins(found)
    detail = confirmed_detail(found)
    with events_recorded() as events:
        yield events
    for event in events if detail else []:
        if not event.detail:
            event.detail = detail
            event.save(update_fields=["detail"])
