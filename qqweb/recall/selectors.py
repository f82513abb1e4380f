"""The memory tests' reads: the pins with their latest result, the runs, the history."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from qqweb.jobs.models import Run
from qqweb.jobs.starting import waits_for_worker
from qqweb.lib.errors import QQError
from qqweb.lib.words import ids_in_words, shortened
from qqweb.recall.charts import HistoryChart, RunPoint, history_chart
from qqweb.recall.engines import recall_engine, recall_sources
from qqweb.recall.errors import RunNotFound
from qqweb.recall.jobs import memory_tests_latest_job
from qqweb.recall.models import Pin, PinResult, TestRun

HISTORY_RUNS = 60  # the chart's points


def item_url(source: str, item_id: str) -> str:
    """The page of a pinned item, as its memory's engine names it ("" when it has none,
    or the memory is not configured here)."""
    engine = recall_engine(source)
    return engine.item_url(item_id) if engine is not None else ""


def _item_text(source: str, item_id: str) -> str:
    """The text of an item a result names (the one a pin was recalled through), "" when
    it cannot be read."""
    engine = recall_engine(source)
    try:
        return engine.whereabouts(item_id).text if engine is not None else ""
    except QQError:
        return ""


@dataclass(frozen=True)
class ResultWords:
    """A pin's result as a curator reads it: ``reason`` with the items it names by id
    named by their text (what outranked it, from the result; the item it is recalled
    through, read once), and ``recalled_text``: that item's text."""

    reason: str
    recalled_text: str


def result_words(result: PinResult) -> ResultWords:
    names = {str(o.get("id", "")): str(o.get("text", "")) for o in result.outranked_by}
    names[result.item_id] = names.get(result.item_id) or result.item_text
    recalled = ""
    if result.recalled_as:
        recalled = names.get(result.recalled_as) or _item_text(result.source, result.recalled_as)
        names[result.recalled_as] = recalled
    return ResultWords(ids_in_words(result.reason, names), shortened(recalled, 80))


@dataclass(frozen=True)
class RunResultRow:
    """A result of a stored run, with its words (:func:`result_words`)."""

    result: PinResult
    words: ResultWords


@dataclass(frozen=True)
class PinRow:
    """A pin with its result in the latest run (None: not run since it was pinned)."""

    pin: Pin
    result: PinResult | None

    @cached_property
    def words(self) -> ResultWords | None:
        return result_words(self.result) if self.result is not None else None

    @property
    def item_url(self) -> str:
        return item_url(self.pin.source, self.pin.item_id)

    @property
    def recalled_url(self) -> str:
        if self.result is None or not self.result.recalled_as:
            return ""
        return item_url(self.pin.source, self.result.recalled_as)

    @property
    def status(self) -> str:
        if self.result is None:
            return "not run"
        return "pass" if self.result.passed else "fail"


def latest_run() -> TestRun | None:
    return TestRun.objects.filter(finished_at__isnull=False).first()


def pins_with_results(run: TestRun | None = None) -> list[PinRow]:
    """Every pin, failing ones first, with its result in ``run`` (the latest by default)."""
    run = run if run is not None else latest_run()
    results = {r.pin_id: r for r in run.results.all()} if run is not None else {}
    rows = [PinRow(pin, results.get(pin.pk)) for pin in Pin.objects.all()]
    order = {"fail": 0, "not run": 1, "pass": 2}
    return sorted(rows, key=lambda row: order[row.status])


def pins_of_item(source: str, item_id: str) -> list[Pin]:
    """The questions pinned to one item (a note's page lists them)."""
    return list(Pin.objects.filter(source=source, item_id=item_id))


def pinned_for(source: str, query: str) -> set[str]:
    """The items pinned for this question (the retrieval preview marks them)."""
    query = query.strip()
    return set(Pin.objects.filter(source=source, query=query).values_list("item_id", flat=True))


def runs_list(limit: int = 50) -> list[TestRun]:
    return list(TestRun.objects.filter(finished_at__isnull=False)[:limit])


def run_results(run: TestRun) -> list[PinResult]:
    return list(run.results.all())


def run_result_rows(run: TestRun) -> list[RunResultRow]:
    """A stored run's results for its page, each with its words."""
    return [RunResultRow(r, result_words(r)) for r in run_results(run)]


def runs_history(limit: int = HISTORY_RUNS) -> list[TestRun]:
    """The last ``limit`` finished runs, oldest first (the chart's points)."""
    return list(reversed(runs_list(limit)))


@dataclass(frozen=True)
class SourceStats:
    source: str
    label: str
    k: int
    pins: int
    passed: int
    recall_at_k: float
    mrr: float


@dataclass(frozen=True)
class MemoryTestsJob:
    """The latest memory tests run in the worker, as the page shows it: while it is open
    (its progress, polled), or when it ended without storing a run (why)."""

    run: Run
    no_worker: bool  # queued, and no worker is alive to take it

    @property
    def is_open(self) -> bool:
        return self.run.is_open

    @property
    def ended_badly(self) -> bool:
        return self.run.status in (Run.FAILED, Run.CANCELLED)


@dataclass(frozen=True)
class MemoryTestsPage:
    rows: list[PinRow]
    run: TestRun | None
    sources: list[SourceStats]
    chart: HistoryChart | None  # None before a second run: one point is no history
    memories: list[str]  # the sources a pin may name here
    job: MemoryTestsJob | None = None  # a run open now, or the last one if it failed

    @property
    def failing(self) -> list[PinRow]:
        return [row for row in self.rows if row.status == "fail"]


def run_sources(run: TestRun) -> list[SourceStats]:
    return [
        SourceStats(
            source,
            str(s.get("label", source)),
            int(s.get("k", 0)),
            int(s.get("pins", 0)),
            int(s.get("passed", 0)),
            float(s.get("recall_at_k", 0.0)),
            float(s.get("mrr", 0.0)),
        )
        for source, s in sorted(run.per_source.items())
    ]


def memory_tests_page() -> MemoryTestsPage:
    """What the memory tests page shows: the pins with their latest result, the latest
    run's measures per source, and the history of every stored run (the last 60)."""
    run = latest_run()
    history = runs_history()
    points = [
        RunPoint(r.pk, r.started_at, r.recall_at_k, r.mrr, r.passed, r.total) for r in history
    ]
    chart = history_chart(points) if len(points) > 1 else None
    sources = run_sources(run) if run is not None else []
    memories = [s for s in recall_sources() if recall_engine(s) is not None]
    return MemoryTestsPage(pins_with_results(run), run, sources, chart, memories, _job_shown(run))


def _job_shown(stored: TestRun | None) -> MemoryTestsJob | None:
    """The latest job run when it is open, or it ended (failed, cancelled) after the
    latest stored run; None when the latest stored run says it all."""
    job = memory_tests_latest_job()
    if job is None or job.status == Run.DONE:
        return None
    if not job.is_open and stored is not None and stored.started_at > job.created_at:
        return None
    return MemoryTestsJob(job, waits_for_worker(job))


def run_report(run: TestRun, *, with_pins: bool = True) -> dict[str, Any]:
    """A run as plain data: the command's ``--json`` and the API's answer."""
    report: dict[str, Any] = {
        "id": run.pk,
        "trigger": run.trigger,
        "actor": run.actor,
        "started_at": run.started_at.isoformat(),
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
        "total": run.total,
        "passed": run.passed,
        "failed": run.failed,
        "recall_at_k": run.recall_at_k,
        "mrr": run.mrr,
        "sources": run.per_source,
    }
    if with_pins:
        report["pins"] = [
            {
                "pin_id": r.pin_id,
                "source": r.source,
                "query": r.query,
                "item_id": r.item_id,
                "item_text": r.item_text,
                "passed": r.passed,
                "rank": r.rank,
                "score": r.score,
                "reason": r.reason,
                "recalled_as": r.recalled_as,
                "outranked_by": r.outranked_by,
            }
            for r in run_results(run)
        ]
    return report


def stored_run(run_id: int) -> TestRun:
    run = TestRun.objects.filter(pk=run_id, finished_at__isnull=False).first()
    if run is None:
        raise RunNotFound(run_id)
    return run
