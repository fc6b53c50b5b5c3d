"""The tune-my-shapes curve measured in the oracle's rounds (recorded rows, no GPU)."""

from __future__ import annotations

import pandas as pd
import pytest

from benchspace.evaluation.deploy.shortlist_format import render_measured
from benchspace.evaluation.deploy.shortlist_measured import measured_curve
from benchspace.evaluation.deploy.shortlist_study import Protocol


def _table(runs: dict[tuple[str, str, str], dict[str, float]]) -> pd.DataFrame:
    rows = []
    for (run, call, tag), times in runs.items():
        for config, ms in times.items():
            rows.append({"run": run, "call": call, "split": "eval", "pass": tag, "M": 256,
                         "N": 512, "K": 1024, "config": config, "ms": ms,
                         "cublas": config.startswith("cublas:")})  # fmt: skip
    return pd.DataFrame(rows)


SHORT = pd.DataFrame(
    {"M": 256, "N": 512, "K": 1024, "rank": [1, 2, 3], "config": ["a", "b", "c:M:2"]}
)


def test_each_k_picks_the_fastest_of_its_top_k_in_the_oracle_run() -> None:
    table = _table({
        ("x1", "c1", "x"): {"a": 1.0, "b": 1.0, "o": 1.0, "cublas:heuristic": 1.0},
        # An older sweep with other clocks must not be used: the latest one is.
        ("k1", "c1", "k"): {"a": 9.0, "o": 9.0, "cublas:heuristic": 9.0},
        ("y2", "c2", "y"): {"a": 2.0, "b": 1.25, "c:M:2": 1.1, "o": 1.0,
                            "cublas:heuristic": 1.5, "cublas:algo0": 1.4},
    })  # fmt: skip
    curve = measured_curve(table, SHORT, ks=(1, 2, 4), protocol=Protocol())
    k1, k2, k4 = curve.rows
    assert k1.mean == pytest.approx(0.5)  # a: 2.0 against the oracle's 1.0
    assert k2.mean == pytest.approx(0.2)  # b: 1.25
    assert k4.mean == pytest.approx(1 - 1 / 1.1)
    assert k1.vs_cublas == pytest.approx(0.75) and k2.vs_cublas == pytest.approx(1.2)
    # With cuBLAS as a choice, K = 1 keeps cuBLAS (1.5 < 2.0): regret 1 - 1.0 / 1.5.
    assert k1.with_cublas[0] == pytest.approx(1 - 1 / 1.5)
    assert curve.oracle_vs_cublas == pytest.approx(1.5)
    assert curve.per_shape["run"].tolist() == ["y2"]
    assert k1.gpu_s < k4.gpu_s < curve.exhaustive_s
    assert "| 2 | 20.00 %" in "\n".join(render_measured(curve))


def test_configurations_not_timed_are_counted_and_skipped() -> None:
    table = _table({("y2", "c2", "y"): {"b": 1.0, "o": 1.0, "cublas:heuristic": 1.0}})
    curve = measured_curve(table, SHORT, ks=(1, 2))
    assert curve.missing == 2
    assert curve.rows[1].mean == pytest.approx(0.0)


def test_no_timed_shortlist_is_a_value_error() -> None:
    table = _table({("y2", "c2", "y"): {"o": 1.0, "cublas:heuristic": 1.0}})
    with pytest.raises(ValueError, match="timed its shortlist"):
        measured_curve(table, SHORT)


ROOT = __import__("pathlib").Path(__file__).parents[3]
COMMITTED = ROOT / "evaluation" / "data" / "h200" / "v2"
SHORTLIST = ROOT / "spaces" / "tune_shapes_eval.shortlist.csv"


@pytest.mark.skipif(not COMMITTED.is_dir(), reason="no committed v2 data")
def test_the_committed_gpu_run_timed_every_shortlist_in_its_oracle_rounds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from benchspace.harness.cli import main

    argv = ["cutlass", "tune-shapes", "--measured", str(COMMITTED), "--shortlist", str(SHORTLIST)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "measured on the GPU, 64 evaluation shapes" in out
    assert "were not timed" not in out
    assert out.count("\n| ") == 6  # the header, K = 1, 2, 4, 8 and all


def test_measured_without_a_shortlist_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from benchspace.harness.cli import main

    assert main(["cutlass", "tune-shapes", "--measured", str(COMMITTED)]) == 2
    assert capsys.readouterr().err == (
        "error: --measured needs --shortlist CSV (the shortlist that was timed)\n"
    )


def test_the_curve_is_drawn_with_its_per_shape_table(tmp_path: __import__("pathlib").Path) -> None:
    pytest.importorskip("matplotlib")
    from benchspace.evaluation.deploy.shortlist_format import write_curve_figure

    table = _table({("y2", "c2", "y"): {"a": 1.2, "b": 1.0, "o": 1.0, "cublas:heuristic": 1.1}})
    curve = measured_curve(table, SHORT, ks=(1, 2))
    path = write_curve_figure(curve, tmp_path / "f" / "k_curve.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_csv_that_is_not_a_shortlist_is_one_line(
    tmp_path: __import__("pathlib").Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both readers of a shortlist (the measured curve and the header from a profile)."""
    from benchspace.harness.cli import main

    bad = tmp_path / "short.csv"
    bad.write_text("M,N\n1,2\n")
    profile = ROOT / "evaluation" / "data" / "h200" / "tune_shapes" / "llm" / "profile.json"
    out = tmp_path / "h.hh"
    argv = ["cutlass", "header", "--from-profile", str(profile), "--shortlist", str(bad),
            "--out", str(out)]  # fmt: skip
    assert main(argv) == 1
    assert capsys.readouterr().err == (
        f"error: {bad}: lacks the columns K, config, rank; pass the <stem>.shortlist.csv that "
        "tune-shapes wrote\n"
    )
    assert not out.exists()
    argv = ["cutlass", "tune-shapes", "--measured", str(COMMITTED), "--shortlist", str(bad)]
    assert main(argv) == 1
    assert "lacks the columns K, config, rank" in capsys.readouterr().err


def test_the_winners_table_ends_with_the_pick_against_cublas() -> None:
    from benchspace.evaluation.deploy.measured_header import ShapeWinner
    from benchspace.evaluation.deploy.shortlist_format import render_winners

    def winner(cutlass: float, cublas: float) -> ShapeWinner:
        return ShapeWinner(shape=(64, 64, 64), winner="k", winner_tflops=max(cutlass, cublas),
                           cutlass="k", cutlass_tflops=cutlass, cublas_tflops=cublas,
                           cublas_best_tflops=cublas)  # fmt: skip

    lines = render_winners([winner(2.0, 1.0), winner(1.0, 2.0), winner(float("nan"), 1.0)])
    assert lines[-1] == (
        "best CUTLASS / cuBLAS heuristic: geometric mean 1.000, CUTLASS ahead on 1 of 2 shapes "
        "(same rounds)"
    )
