"""The position sentinel's figures, on synthetic rows and on the committed H200 timing data."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from benchspace.evaluation import DATA_DIR
from benchspace.evaluation.study.position import (
    position_check,
    render_position,
    sentinel_ratios,
    warnings_for,
)
from benchspace.evaluation.study.timing_runs import load_timing


def _rows(ratios: list[float]) -> pd.DataFrame:
    rows = []
    for i, r in enumerate(ratios):
        rows.append({"config": f"k{i}", "sentinel": "first", "sentinel_ratio": r})
        rows.append({"config": f"k{i}@last", "sentinel": "last", "sentinel_ratio": r})
        rows.append({"config": f"j{i}", "sentinel": "", "sentinel_ratio": ""})
    return pd.DataFrame(rows)


def test_one_ratio_per_run_from_the_first_copy() -> None:
    assert list(sentinel_ratios(_rows([1.0, 1.1]))) == [1.0, 1.1]


def test_check_figures_and_line() -> None:
    check = position_check(_rows([0.99, 1.0, 1.03]))
    assert check is not None
    assert check.runs == 3 and check.max == pytest.approx(1.03)
    assert check.geomean == pytest.approx(math.exp((math.log(0.99) + math.log(1.03)) / 3))
    assert check.outside == 1
    (line,) = render_position(check)
    assert line.startswith("position check: sentinel last/first geomean 1.0065 (p5 ")
    assert "over 3 runs; warning: 1 run(s) outside 1 ± 2%" in line


def test_no_sentinel_rows_no_line() -> None:
    assert position_check(pd.DataFrame({"config": ["a"]})) is None
    assert render_position(None) == []


def test_warnings_name_the_runs_outside() -> None:
    assert warnings_for({"s1": 1.01, "s2": 0.97}) == [
        "warning: s2: position sentinel last/first 0.9700, outside 1 ± 2%; its timings "
        "depend on list position, re-run it"
    ]


def test_recorded_h200_data_passes_the_geomean_target() -> None:
    rows = load_timing(DATA_DIR / "h200" / "timing")
    check = position_check(rows)
    assert check is not None and check.runs == 479
    assert abs(check.geomean - 1) <= 0.01


def test_one_warning_line_names_the_runs_outside_two_percent() -> None:
    from benchspace.evaluation.study.position import run_ratios, warning_line

    rows = pd.DataFrame(
        {
            "run": ["a", "a", "b", "c", "d", "e", "f", "g"],
            "sentinel": ["first", "", "first", "first", "first", "first", "first", "first"],
            "sentinel_ratio": [1.005, None, 1.031, 0.97, 1.019, 0.9, 1.5, 1.04],
        }
    )
    ratios = run_ratios(rows)
    assert ratios["a"] == 1.005 and len(ratios) == 7
    line = warning_line(ratios)
    assert line is not None and "\n" not in line
    # d reads 1.019: inside; the worst first, four named, the rest counted
    assert "in 5 of 7 runs (f 1.5000, e 0.9000, g 1.0400, b 1.0310 and 1 more)" in line
    assert warning_line({"a": 1.01, "b": 0.985}) is None
    assert run_ratios(rows.drop(columns=["sentinel_ratio"])) == {}
