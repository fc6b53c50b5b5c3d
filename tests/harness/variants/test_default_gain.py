"""The winner's speed-up over the header's fallbacks (pure)."""

from __future__ import annotations

import math
from pathlib import Path

from benchspace.harness.profiles.model import BenchResult, MeasurementRow
from benchspace.harness.spaces.load import load_space
from benchspace.harness.variants.default_gain import (
    case_gains,
    gain_lines,
    gains_data,
    geomean_speedup,
    library_defaults,
)

ROOT = Path(__file__).resolve().parents[3]


def _row(case: int, bs: int, ipt: int, median: float | None) -> MeasurementRow:
    return MeasurementRow(
        case_index=case,
        fixed={"n": 10**case},
        params={"BLOCK_SIZE": bs, "ITEMS_PER_THREAD": ipt},
        median=median,
    )


def _result(direction: str = "min") -> BenchResult:
    rows = (
        _row(0, 256, 4, 10.0),
        _row(0, 512, 8, 8.0),
        _row(1, 256, 4, 30.0),
        _row(1, 64, 16, 15.0),
        _row(2, 256, 4, None),  # the default failed in this case
        _row(2, 128, 2, 5.0),
    )
    best = (rows[1], rows[3], rows[5]) if direction == "min" else (rows[0], rows[2], rows[5])
    return BenchResult(
        bench="cuda_reduce", metric="t", direction=direction, measurements=rows, per_case_best=best
    )


def test_the_library_default_is_the_headers_scalar_fallbacks() -> None:
    space = load_space(ROOT / "spaces" / "h200_reduce.json")
    assert library_defaults(space, "cuda_reduce") == {"BLOCK_SIZE": 256, "ITEMS_PER_THREAD": 4}
    assert library_defaults(space, "other") == {}
    demo = load_space(ROOT / "spaces" / "demo_variants.json")
    assert library_defaults(demo, "reduce") == {"REDUCE_LANES": 4}


def test_speedup_per_case_and_geomean_skip_a_case_without_the_default() -> None:
    defaults = {"BLOCK_SIZE": 256, "ITEMS_PER_THREAD": 4}
    gains = case_gains(_result(), defaults)
    assert [g.speedup for g in gains] == [1.25, 2.0, None]
    assert geomean_speedup(gains) == math.sqrt(1.25 * 2.0)
    lines = gain_lines("cuda_reduce", "t", gains)
    assert lines[0] == (
        "cuda_reduce: winner against the library's default (BLOCK_SIZE=256 ITEMS_PER_THREAD=4), t"
    )
    assert lines[1].endswith("default 10, best 8 (BLOCK_SIZE=512 ITEMS_PER_THREAD=8): 1.250x")
    assert "default not measured" in lines[3]
    assert lines[-2] == "  geometric mean speed-up over 2 cases: 1.581x"
    assert lines[-1].startswith("  figures from the sweep's rounds, which chose the winner, for 2")
    data = gains_data("cuda_reduce", "t", gains)
    assert data["geomean_speedup"] == geomean_speedup(gains)


def test_a_max_metric_divides_the_other_way_and_no_default_means_no_figure() -> None:
    gains = case_gains(_result("max"), {"BLOCK_SIZE": 256, "ITEMS_PER_THREAD": 4})
    assert [g.speedup for g in gains[:2]] == [1.0, 1.0]
    none = case_gains(_result(), {})
    assert all(g.speedup is None for g in none)
    assert geomean_speedup(none) is None
    assert "(no header fallbacks)" in gain_lines("b", "t", none)[0]
    assert gain_lines("b", "t", []) == ["b: no case has a measured best"]


def test_figures_say_they_come_from_the_confirmation_when_both_rows_were_retimed() -> None:
    from dataclasses import replace

    result = _result()
    rows = tuple(replace(r, confirmed=True) for r in result.measurements)
    best = (rows[1], rows[3], rows[5])
    confirmed = replace(result, measurements=rows, per_case_best=best)
    gains = case_gains(confirmed, {"BLOCK_SIZE": 256, "ITEMS_PER_THREAD": 4})
    assert [g.confirmed for g in gains] == [True, True, False]  # case 2's default failed
    lines = gain_lines("cuda_reduce", "t", gains)
    assert lines[-1] == "  figures from the confirmation rounds (default and winner re-timed fresh)"
    assert gains_data("cuda_reduce", "t", gains)["cases"][0]["confirmed"] is True  # type: ignore[index]


def test_held_out_gains_time_one_runs_winners_in_another_run() -> None:
    from benchspace.harness.variants.default_gain import held_out_gains

    chooser = _result()  # picks 512x8 at case 0, 64x16 at case 1, 128x2 at case 2
    rows = (
        _row(0, 256, 4, 9.0),
        _row(0, 512, 8, 9.0),  # the pick was lucky: a tie in the other run
        _row(1, 256, 4, 30.0),
        _row(1, 64, 16, 20.0),
        _row(2, 128, 2, 5.0),  # no default timed here
    )
    timer = BenchResult(bench="cuda_reduce", metric="t", direction="min", measurements=rows)
    gains = held_out_gains(chooser, timer, {"BLOCK_SIZE": 256, "ITEMS_PER_THREAD": 4})
    assert [g.speedup for g in gains] == [1.0, 1.5, None]
    assert [g.best_median for g in gains] == [9.0, 20.0, 5.0]
    lines = gain_lines("cuda_reduce", "t", gains, timed_in="b.json")
    assert lines[-1] == "  figures from the rounds of b.json, which did not choose these winners"
