"""The memory tests' history as an inline SVG: pure geometry, no I/O. One point per run
for recall@k and for MRR (both 0 to 1); the template only places what this returns."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

WIDTH, HEIGHT, PAD, LEFT = 600, 150, 20, 34
COLOURS = {"recall@k": "#2b8a3e", "MRR": "#3b5bdb"}
DASHES = {"recall@k": "", "MRR": "6 4"}  # MRR dashed: both show where they are equal
MAX_X_LABELS = 6


@dataclass(frozen=True)
class RunPoint:
    """What the chart needs of a run."""

    run_id: int
    at: datetime
    recall_at_k: float
    mrr: float
    passed: int
    total: int


@dataclass(frozen=True)
class Dot:
    x: float
    y: float
    title: str
    failed: bool  # a run with a failing pin is drawn hollow


@dataclass(frozen=True)
class Series:
    name: str
    colour: str
    points: str  # a polyline's points
    dots: list[Dot]
    dash: str  # the line's stroke-dasharray ("" solid)


@dataclass(frozen=True)
class HistoryChart:
    width: int
    height: int
    series: list[Series]
    x_labels: list[tuple[float, str, str]]  # x, text, text-anchor (kept inside the chart)
    y_labels: list[tuple[float, str]]  # 0, 0.5, 1 with their y


def _y(value: float) -> float:
    value = min(max(value, 0.0), 1.0)
    return round(HEIGHT - PAD - value * (HEIGHT - 2 * PAD), 1)


def _anchor(x: float) -> str:
    if x < LEFT + 40:
        return "start"
    return "end" if x > WIDTH - PAD - 40 else "middle"


def history_chart(runs: Sequence[RunPoint]) -> HistoryChart:
    """recall@k and MRR over ``runs`` (oldest first), evenly spaced, one dot a run."""
    n = len(runs)
    span = WIDTH - LEFT - PAD

    def x(i: int) -> float:
        return round(LEFT + (span / 2 if n == 1 else i * span / (n - 1)), 1)

    series = []
    for name, colour in COLOURS.items():
        values = [r.recall_at_k if name == "recall@k" else r.mrr for r in runs]
        dots = [
            Dot(
                x(i),
                _y(v),
                f"run {r.run_id}, {r.at:%Y-%m-%d %H:%M}: {name} {v:.2f} "
                f"({r.passed} of {r.total} pins pass)",
                r.passed < r.total,
            )
            for i, (r, v) in enumerate(zip(runs, values, strict=True))
        ]
        points = " ".join(f"{d.x},{d.y}" for d in dots)
        series.append(Series(name, colour, points, dots, DASHES[name]))
    step = max(1, -(-n // MAX_X_LABELS))
    x_labels = [(x(i), f"{runs[i].at:%m-%d %H:%M}", _anchor(x(i))) for i in range(0, n, step)]
    y_labels = [(_y(v), f"{v:g}") for v in (0.0, 0.5, 1.0)]
    return HistoryChart(WIDTH, HEIGHT, series, x_labels, y_labels)
