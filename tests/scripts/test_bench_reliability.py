"""bench/reliability.py, the one command that runs issue 28's benchmarks: a script that is
not there is skipped and said so, and the table it writes carries every figure's load."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from bench import reliability
from bench.reliability import Step, collect, run_step


def test_a_missing_bench_script_is_skipped_and_named(capsys: pytest.CaptureFixture[str]) -> None:
    log = io.StringIO()
    done = run_step(Step("later", "no_such_bench_yet", what="a bench not written yet"), log)
    assert done["status"] == "missing"
    assert "bench/no_such_bench_yet.py is not there" in capsys.readouterr().out
    assert "no_such_bench_yet.py is not there" in log.getvalue()
    table = collect([done])
    assert "| later | a bench not written yet | missing |" in table


def test_the_table_shows_each_figure_beside_its_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reliability, "RESULTS", tmp_path)
    page = {
        "100k notes": [{"row": "Overview /", "over HTTP": {"ms": 41.5, "load": 2.5, "note": ""}}]
    }
    (tmp_path / "pages.json").write_text(json.dumps(page))
    other = {"first search": {"ms": 12_500.0, "load": 1.25, "note": ""}, "workers": 3}
    (tmp_path / "restart.json").write_text(json.dumps(other))
    steps = [
        {"step": "pages", "what": "pages", "status": "ok", "seconds": 60.0, "results": ["pages"]},
        {
            "step": "restart",
            "what": "restart",
            "status": "ok",
            "seconds": 6.0,
            "results": ["restart"],
        },
    ]
    table = collect(steps)
    assert "| Overview / | 41.5 ms [load 2.5] |" in table
    assert "| first search | 12.5 s [load 1.2] |" in table
    assert "| workers | 3 |" in table
    assert "Whole run: 1.1 min." in table
