"""Run the memory tests: every pin asked of its engine, as the agent retrieves.

A pin passes when the agent injects its item for the query within its engine's ``k``,
or the item holding its text now (a merge's survivor: ``whereabouts.now_id``). When it
does not, the reason says why in the user's terms: where the item went (archived,
merged, deleted), why the agent's rules leave it out (its score, its importance), or what
outranked it. An engine that cannot answer (its store down) fails its pins with that
reason. Every run is stored, with each pin's result."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.utils import timezone

from qqweb.jobs.models import Run
from qqweb.lib.actors import Actor
from qqweb.lib.errors import QQError
from qqweb.recall.engines import Recall, RecallEngine, recall_engine
from qqweb.recall.maths import mean_reciprocal_rank, recall_at_k
from qqweb.recall.models import Pin, PinResult, TestRun

OUTRANKED_NAMED = 3  # named in the reason; outranked_by keeps every one
Progress = Callable[[int, int | None], None]


@dataclass
class Outcome:
    rank: int | None = None
    reason: str = ""
    recalled_as: str = ""
    score: float | None = None
    outranked_by: list[dict[str, Any]] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.rank is not None


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _ranked(recall: Recall) -> list[dict[str, Any]]:
    return [
        {"id": i.id, "text": i.text[:200], "score": i.score}
        for i in recall.items
        if i.score is not None
    ]


def _missed(engine: RecallEngine, recall: Recall, query: str, item_id: str) -> Outcome:
    """Why a present item is not among what the agent injects."""
    score = engine.score(query, item_id)
    rule = engine.left_out(query, item_id)
    if rule:
        return Outcome(reason=rule, score=score)
    above = _ranked(recall)
    named = ", ".join(
        f"{o['id']} ({o['score']:.2f})" if o["score"] is not None else o["id"]
        for o in above[:OUTRANKED_NAMED]
    )
    more = f" and {len(above) - OUTRANKED_NAMED} more" if len(above) > OUTRANKED_NAMED else ""
    beyond = recall.ranked_beyond(item_id)
    scored = f"scores {score:.2f}; " if score is not None else ""
    if beyond is not None:
        where = f"ranked {ordinal(beyond.rank)}, past the agent's {engine.k}"
    else:
        where = f"ranked below the agent's first {engine.k + len(recall.beyond)}"
    return Outcome(
        reason=f"{scored}{where}; outranked by {named}{more}", score=score, outranked_by=above
    )


def pin_evaluate(engine: RecallEngine | None, recall: Recall | None, pin: Pin) -> Outcome:
    """One pin's outcome against the agent's recall for its query."""
    if engine is None or recall is None:
        return Outcome(reason=f"there is no memory {pin.source!r} here: it is not configured")
    if recall.error:
        return Outcome(reason=f"the agent's retrieval failed: {recall.error}")
    try:
        rank = recall.rank_of(pin.item_id)
        if rank is not None:
            item = next(i for i in recall.items if i.id == pin.item_id)
            return Outcome(rank=rank, score=item.score)
        where = engine.whereabouts(pin.item_id)
        if where.present:
            return _missed(engine, recall, pin.query, pin.item_id)
        if not where.now_id:
            return Outcome(reason=where.reason)
        rank = recall.rank_of(where.now_id)
        if rank is not None:
            item = next(i for i in recall.items if i.id == where.now_id)
            return Outcome(rank=rank, recalled_as=where.now_id, score=item.score)
        missed = _missed(engine, recall, pin.query, where.now_id)
        missed.reason = f"{where.reason}, and {where.now_id} is not recalled: {missed.reason}"
        missed.recalled_as = where.now_id
        return missed
    except QQError as e:  # the store went down half-way
        return Outcome(reason=str(e))


def _result(run: TestRun, pin: Pin, outcome: Outcome) -> PinResult:
    return PinResult(
        run=run,
        pin=pin,
        source=pin.source,
        query=pin.query,
        item_id=pin.item_id,
        item_text=pin.item_text,
        rank=outcome.rank,
        passed=outcome.passed,
        reason=outcome.reason,
        recalled_as=outcome.recalled_as,
        score=outcome.score,
        outranked_by=outcome.outranked_by,
    )


def _recall(engine: RecallEngine, query: str) -> Recall:
    try:
        return engine.recall(query)
    except QQError as e:
        return Recall([], error=str(e))


@dataclass(frozen=True)
class PinOutcome:
    pin: Pin
    outcome: Outcome


@dataclass
class Evaluation:
    """Every pin's outcome, and the engines that answered (by source)."""

    outcomes: list[PinOutcome]
    engines: dict[str, RecallEngine | None]


# A run reports its progress (and may be cancelled) every this many pins.
PROGRESS_EVERY = 20


def pins_evaluate(progress: Progress | None = None) -> Evaluation:
    """Every pin's outcome now, writing nothing (what a plan would do to them is
    :func:`qqweb.recall.effects.plan_effect`'s). ``progress(done, total)`` is called
    every ``PROGRESS_EVERY`` pins and at the end (a job's, which stops the run there when
    it was cancelled)."""
    engines: dict[str, RecallEngine | None] = {}
    recalls: dict[tuple[str, str], Recall | None] = {}
    down: dict[str, Recall] = {}  # a source whose retrieval failed: asked no more this run
    outcomes: list[PinOutcome] = []
    pins = list(Pin.objects.order_by("source", "query", "id"))
    for done, pin in enumerate(pins, start=1):
        if pin.source not in engines:
            engines[pin.source] = recall_engine(pin.source)
        engine = engines[pin.source]
        key = (pin.source, pin.query)
        if key not in recalls:
            answered = down.get(pin.source) or (
                _recall(engine, pin.query) if engine is not None else None
            )
            if answered is not None and answered.error:
                down[pin.source] = answered
            recalls[key] = answered
        outcomes.append(PinOutcome(pin, pin_evaluate(engine, recalls[key], pin)))
        if progress is not None and done % PROGRESS_EVERY == 0:
            progress(done, len(pins))
    if progress is not None:
        progress(len(pins), len(pins))
    return Evaluation(outcomes, engines)


def memory_tests_run(
    *,
    actor: Actor,
    trigger: str,
    progress: Progress | None = None,
    job_run: Run | None = None,
) -> TestRun:
    """Run every pin now with its agent's retrieval; store the run and its results, in
    one transaction once every pin is evaluated (a run stopped half-way stores nothing).
    ``job_run``: the job's run this one is (:mod:`qqweb.recall.jobs`)."""
    started = timezone.now()
    evaluation = pins_evaluate(progress)
    ranks: dict[str, list[int | None]] = defaultdict(list)
    for o in evaluation.outcomes:
        ranks[o.pin.source].append(o.outcome.rank)
    per_source: dict[str, dict[str, Any]] = {}
    for source, source_ranks in sorted(ranks.items()):
        engine = evaluation.engines[source]
        k = engine.k if engine is not None else 0
        per_source[source] = {
            "label": engine.label if engine is not None else source,
            "k": k,
            "pins": len(source_ranks),
            "passed": sum(1 for r in source_ranks if r is not None),
            "recall_at_k": recall_at_k(source_ranks, k) if k else 0.0,
            "mrr": mean_reciprocal_rank(source_ranks),
        }
    every = [r for source_ranks in ranks.values() for r in source_ranks]
    total = len(evaluation.outcomes)
    passed = sum(1 for o in evaluation.outcomes if o.outcome.passed)
    with transaction.atomic():
        run = TestRun.objects.create(
            trigger=trigger,
            actor=actor.label,
            started_at=started,
            finished_at=timezone.now(),
            job_run=job_run,
            total=total,
            passed=passed,
            failed=total - passed,
            # each rank is within its own source's k already
            recall_at_k=recall_at_k(
                every, max((int(s["k"]) for s in per_source.values()), default=1)
            ),
            mrr=mean_reciprocal_rank(every),
            per_source=per_source,
        )
        PinResult.objects.bulk_create([_result(run, o.pin, o.outcome) for o in evaluation.outcomes])
    return run
