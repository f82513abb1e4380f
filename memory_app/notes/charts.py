"""Chart geometry for server-rendered SVG: pure functions, no I/O. Templates only place
what these return (rectangles, polyline points, labels, colours)."""

from __future__ import annotations

import math
from dataclasses import dataclass

WIDTH, HEIGHT, PAD = 600, 200, 24
# The labels' largest font size in a narrow chart, in the chart's units (qqweb.css,
# ".chart-box"): a chart drawn under 600 px wide (a phone, a card in a row of three) has
# labels of 17 units, one under 390 px of 22 (11 px from 300 px up), so none is under
# 11 px. There every second (third...) label is left out where 22-unit ones would overlap.
NARROW_LABEL_SIZE = 22
SERIES_COLOURS = {"now": "#3b5bdb", "7 days": "#f08c00", "30 days": "#e8590c", "90 days": "#c92a2a"}


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    label: str
    value: int
    query: str = ""  # the notes list's filter that lists this bar's notes ("" none)


@dataclass(frozen=True)
class Line:
    name: str
    colour: str
    points: str


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    bars: list[Bar]
    lines: list[Line]
    x_labels: list[tuple[float, str, bool]]  # x, text, shown in a narrow chart too
    max_value: int


def histogram_chart(
    labels: list[str],
    bars: list[int],
    overlays: dict[str, list[int]] | None = None,
    queries: list[str] | None = None,
) -> Chart:
    """Bars for ``bars`` and one line per overlay series, on one scale; ``queries``: each
    bar's filter of the notes list (the bar links to its notes)."""
    overlays = overlays or {}
    top = max([*bars, *(v for s in overlays.values() for v in s), 1])
    n = max(len(bars), 1)
    slot = (WIDTH - 2 * PAD) / n
    plot_h = HEIGHT - 2 * PAD

    def y(value: int) -> float:
        return round(HEIGHT - PAD - value / top * plot_h, 1)

    rects = [
        Bar(
            round(PAD + i * slot + 2, 1),
            y(v),
            round(slot - 4, 1),
            round(v / top * plot_h, 1),
            labels[i],
            v,
            queries[i] if queries else "",
        )
        for i, v in enumerate(bars)
    ]
    lines = [
        Line(
            name,
            SERIES_COLOURS.get(name, "#555"),
            " ".join(f"{PAD + (i + 0.5) * slot:.1f},{y(v)}" for i, v in enumerate(series)),
        )
        for name, series in overlays.items()
    ]
    ticks = [(round(PAD + i * slot, 1), labels[i]) for i in range(0, n, max(1, n // 10))]
    return Chart(WIDTH, HEIGHT, rects, lines, narrow_ticks(ticks), top)


def narrow_ticks(ticks: list[tuple[float, str]]) -> list[tuple[float, str, bool]]:
    """Each tick with whether a narrow chart shows it: the first, then every k-th, k the
    fewest tick gaps that hold the widest label at ``NARROW_LABEL_SIZE`` (a character
    taken as 0.6 of the size, plus half a size between labels)."""
    if len(ticks) < 2:
        return [(x, text, True) for x, text in ticks]
    gap = ticks[1][0] - ticks[0][0]
    widest = len(max((text for _, text in ticks), key=len)) * 0.6 * NARROW_LABEL_SIZE
    widest += NARROW_LABEL_SIZE / 2
    every = max(1, math.ceil(widest / gap))
    return [(x, text, i % every == 0) for i, (x, text) in enumerate(ticks)]
