"""The memory tests' reads: the pins with their latest result, the runs, the history."""

from __future__ import annotations

from dataclasses import dataclass

from qqweb.recall.models import Pin, PinResult, TestRun

HISTORY_RUNS = 60  # the chart's points


@dataclass(frozen=True)
class PinRow:
    """A pin with its result in the latest run (None: not run since it was pinned)."""

    pin: Pin
    result: PinResult | None

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


def runs_list(limit: int = 50) -> list[TestRun]:
    return list(TestRun.objects.filter(finished_at__isnull=False)[:limit])


def run_results(run: TestRun) -> list[PinResult]:
    return list(run.results.all())


def runs_history(limit: int = HISTORY_RUNS) -> list[TestRun]:
    """The last ``limit`` finished runs, oldest first (the chart's points)."""
    return list(reversed(runs_list(limit)))
