"""What a curation plan would do to the pinned recalls, computed on the plan (no write).

A plan removes items from the agent's memory: an archival or a bulk archive takes notes
out, a merge keeps one note of a pair (the survivor holds the other's text), the facts
agent's next start deletes facts. :func:`plan_effect` is given that as ``removed`` (an
item's id -> the item that holds its text after the plan, or None when it is gone) and
answers which pins pass now and would fail once the plan is applied, each with why.

Removing items only moves the others up in the agent's order, so a pin can be lost only
when the item it is recalled through (its own, or a merge's survivor it follows) is in
the plan. Those pins (the *touched* ones) are asked of the engine twice: now, and after
the plan (``without=`` the removed ids, on the survivor where there is one); a pin that
fails already is not lost by the plan. The other pins cost one batched read of which
items are present (``present``: one ``$in`` query for the notes), and a lookup of where
each absent item went (``whereabouts``), no vector search.

Cost: that read, one lookup per pin whose item is gone, plus at most two vector searches
(with their query's embedding) per distinct query of a touched pin; nothing when the plan
touches no pinned item."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from qqweb.lib.errors import QQError
from qqweb.lib.words import ids_in_words
from qqweb.recall.engines import Recall, RecallEngine, Whereabouts, recall_engine
from qqweb.recall.models import Pin
from qqweb.recall.running import pin_evaluate


@dataclass(frozen=True)
class LostRecall:
    """A pin that passes now and would fail after the plan: ``why`` in the user's terms
    ("archived by this plan", "merged into note_b by this plan, and note_b is not
    recalled: ...")."""

    pin_id: int
    query: str
    item_id: str
    item_text: str
    why: str
    url: str = ""  # the item's page
    why_words: str = ""  # ``why`` as a curator reads it: each item it names by its text

    @property
    def reason(self) -> str:
        """What the pages show: ``why`` in words."""
        return self.why_words or self.why


@dataclass(frozen=True)
class PlanEffect:
    """The effect of a plan on the pins of one source: ``pins`` of them in all, the ones
    it ``lost``, and ``highlight``: the plan's items that pinned recalls go through (the
    rows the plan's table marks), lost or not. ``error``: the pins could not be checked
    (the store is down), so nothing is known of the effect."""

    source: str
    pins: int
    lost: list[LostRecall]
    highlight: frozenset[str]
    error: str = ""
    subject: str = "This plan"  # what the summary says loses them ("The next start")

    @property
    def loses(self) -> bool:
        return bool(self.lost)

    @property
    def pinned_items(self) -> list[str]:
        return sorted(self.highlight)

    @property
    def summary(self) -> str:
        """ "This plan loses 2 of 40 pinned recalls" ("" when it loses none)."""
        if self.error:
            what = self.subject[:1].lower() + self.subject[1:]
            return f"The effect of {what} on the pinned recalls is unknown: {self.error}"
        if not self.lost:
            return ""
        s = "" if self.pins == 1 else "s"
        return f"{self.subject} loses {len(self.lost)} of {self.pins} pinned recall{s}"


class _Planned:
    """The engine as it would answer once the plan is applied: the removed items are not
    retrieved, and a removed item's whereabouts says the plan removed it (and follows it
    to its survivor)."""

    def __init__(
        self,
        engine: RecallEngine,
        removed: Mapping[str, str | None],
        gone: str | Mapping[str, str],
        kept: str,
    ):
        self.engine, self.removed, self.gone, self.kept = engine, removed, gone, kept
        self.source, self.label, self.k = engine.source, engine.label, engine.k

    def recall(self, query: str, *, without: frozenset[str] = frozenset()) -> Recall:
        return self.engine.recall(query, without=without | frozenset(self.removed))

    def whereabouts(self, item_id: str) -> Whereabouts:
        if item_id in self.removed:
            return self._by_plan(item_id)
        where = self.engine.whereabouts(item_id)
        if where.now_id and where.now_id in self.removed:
            later = self._by_plan(where.now_id)
            reason = f"{where.reason}, and {where.now_id} is {later.reason}"
            return Whereabouts(False, where.text, reason, later.now_id)
        return where

    def present(self, item_ids: Collection[str]) -> set[str]:
        return self.engine.present([i for i in item_ids if i not in self.removed])

    def _by_plan(self, item_id: str) -> Whereabouts:
        survivor = self.removed[item_id]
        if survivor:
            return Whereabouts(False, reason=self.kept.format(survivor), now_id=survivor)
        if isinstance(self.gone, str):
            return Whereabouts(False, reason=self.gone)
        return Whereabouts(False, reason=self.gone.get(item_id, "removed by this plan"))

    def left_out(self, query: str, item_id: str) -> str:
        return self.engine.left_out(query, item_id)

    def item_url(self, item_id: str) -> str:
        return self.engine.item_url(item_id)

    def unsearchable(self, item_id: str) -> str:
        return self.engine.unsearchable(item_id)

    def score(self, query: str, item_id: str) -> float | None:
        return self.engine.score(query, item_id)


def _holders(engine: RecallEngine, pins: list[Pin]) -> dict[int, str]:
    """By pin, the item it is recalled through now: its own when present (one batched
    read for every pin, ``present``), else the item holding its text ("" for none: one
    lookup for each such pin, ``whereabouts``)."""
    present = engine.present({pin.item_id for pin in pins})
    return {
        pin.pk: pin.item_id if pin.item_id in present else engine.whereabouts(pin.item_id).now_id
        for pin in pins
    }


def pinned_holders(source: str) -> set[str]:
    """The items the pins of ``source`` are recalled through now: a plan that does not
    touch one of them cannot lose a pin by removing items. Raises the engine's QQError
    when its store is down."""
    pins = list(Pin.objects.filter(source=source))
    engine = recall_engine(source) if pins else None
    if engine is None:
        return set()
    return {h for h in _holders(engine, pins).values() if h}


def _answered(recall: Recall) -> Recall:
    """The recall, or its failure raised: a pin the agent cannot be asked is not lost by
    the plan, its effect is unknown."""
    if recall.error:
        raise _Unanswered(recall.error)
    return recall


class _Unanswered(QQError):
    pass


def _in_words(
    engine: RecallEngine, why: str, pin: Pin, recalls: list[Recall], others: Collection[str]
) -> str:
    """``why`` with the items it names by id named by their text: the ones the agent
    ranked (known from ``recalls``), the pin's own, and those of ``others`` it names (a
    merge's survivor, the item a pin is recalled through: one lookup each, only for a
    lost pin's reason)."""
    names = {i.id: i.text for r in recalls for i in (*r.items, *r.beyond)}
    names[pin.item_id] = names.get(pin.item_id) or pin.item_text
    for item_id in set(others) - set(names):
        if item_id and item_id in why:
            names[item_id] = engine.whereabouts(item_id).text
    return ids_in_words(why, names)


def plan_effect(
    source: str,
    removed: Mapping[str, str | None],
    *,
    gone: str | Mapping[str, str] = "removed by this plan",
    kept: str = "merged into {} by this plan",
    subject: str = "This plan",
) -> PlanEffect:
    """The pins of ``source`` a plan removing ``removed`` would lose (module docstring:
    what it costs). The reasons say what the plan does to a removed item: ``gone`` when
    it has no survivor ("archived by this plan", or one per item id), ``kept`` with its
    survivor's id
    ("merged into {} by this plan"); ``subject`` names the plan in the summary."""
    pins = list(Pin.objects.filter(source=source))
    engine = recall_engine(source) if pins and removed else None
    if engine is None:
        return PlanEffect(source, len(pins), [], frozenset(), subject=subject)
    try:
        holders = _holders(engine, [pin for pin in pins if pin.item_id not in removed])
        touched = [
            (pin, holder)
            for pin in pins
            if (holder := pin.item_id if pin.item_id in removed else holders[pin.pk]) in removed
        ]
        planned = _Planned(engine, removed, gone, kept)
        now: dict[str, Recall] = {}
        after: dict[str, Recall] = {}
        lost = []
        for pin, _ in touched:
            if pin.query not in now:
                now[pin.query] = _answered(engine.recall(pin.query))
            if not pin_evaluate(engine, now[pin.query], pin).passed:
                continue  # failing already: the plan does not lose it
            if pin.query not in after:
                after[pin.query] = _answered(planned.recall(pin.query))
            outcome = pin_evaluate(planned, after[pin.query], pin)
            if not outcome.passed:
                lost.append(
                    LostRecall(
                        pin.pk,
                        pin.query,
                        pin.item_id,
                        pin.item_text,
                        outcome.reason,
                        engine.item_url(pin.item_id),
                        _in_words(
                            engine,
                            outcome.reason,
                            pin,
                            [*now.values(), *after.values()],
                            {*holders.values(), *(s for s in removed.values() if s)},
                        ),
                    )
                )
    except QQError as e:
        return PlanEffect(source, len(pins), [], frozenset(), str(e), subject)
    return PlanEffect(source, len(pins), lost, frozenset(h for _, h in touched), "", subject)
