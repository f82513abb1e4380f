"""The history chart's geometry (qqweb/recall/charts.py): pure, no I/O."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from qqweb.recall.charts import HEIGHT, PAD, RunPoint, history_chart

START = datetime(2026, 11, 20, 8, 0, tzinfo=UTC)


def _runs(*values: tuple[float, float, int, int]) -> list[RunPoint]:
    return [
        RunPoint(i + 1, START + timedelta(hours=i), r, m, passed, total)
        for i, (r, m, passed, total) in enumerate(values)
    ]


def test_a_run_losing_a_recall_is_drawn_lower_and_hollow():
    chart = history_chart(_runs((1.0, 1.0, 2, 2), (0.5, 0.25, 1, 2)))
    recall = next(s for s in chart.series if s.name == "recall@k")
    first, second = recall.dots
    assert first.y == PAD and second.y == (HEIGHT - PAD + PAD) / 2  # 1.0 at the top, 0.5 half
    assert (first.failed, second.failed) == (False, True)
    assert second.title == "run 2, 2026-11-20 09:00: recall@k 0.50 (1 of 2 pins pass)"
    assert first.x < second.x
    # the first and the last time stay inside the chart
    assert [anchor for _, _, anchor in chart.x_labels] == ["start", "end"]


def test_every_run_is_a_point_of_both_series_and_labels_stay_few():
    chart = history_chart(_runs(*[(1.0, 0.5, 1, 1)] * 30))
    assert [len(s.dots) for s in chart.series] == [30, 30]
    assert len(chart.x_labels) <= 6
    assert [text for _, text in chart.y_labels] == ["0", "0.5", "1"]
