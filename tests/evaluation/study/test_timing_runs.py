"""The timing study's noise figures and K curve, on synthetic runs and the recorded data."""

from __future__ import annotations

import pandas as pd
import pytest

from benchspace.evaluation import DATA_DIR
from benchspace.evaluation.study.timing_runs import HEURISTIC, k_curve, load_timing, mode_noise
from benchspace.evaluation.study.timing_summary import timing_summary


def _row(run: str, config: str, ms: float, shape: int = 64) -> dict[str, object]:
    return {"run": run, "mode": "g0", "config": config, "status": "ok", "sentinel": "",
            "ms_median": ms, "M": shape, "N": 64, "K": 64}  # fmt: skip


def _frame() -> pd.DataFrame:
    rows = [
        _row("a", HEURISTIC, 1.0), _row("a", "x", 0.9), _row("a", "y", 0.95),
        _row("b", HEURISTIC, 1.1), _row("b", "x", 1.0), _row("b", "y", 0.8),
        _row("a", HEURISTIC, 1.0, 128), _row("a", "x", 1.2, 128), _row("a", "y", 1.3, 128),
        _row("b", HEURISTIC, 1.0, 128), _row("b", "x", 1.2, 128), _row("b", "y", 1.3, 128),
    ]  # fmt: skip
    return pd.DataFrame(rows)


def test_noise_heuristic_sd_and_best_loss() -> None:
    (noise,) = mode_noise(_frame())
    assert noise.shapes == 2
    assert noise.heuristic_sd == pytest.approx(pd.Series([1.1, 1.0]).std())
    # shape 64: a picks y (0.8 in b... no: a picks x 0.9; in b x is 1.0 vs best 0.8: loses 25 %;
    # b picks y, in a y is 0.95 vs 0.9: 5.6 %; shape 128 picks the heuristic both ways: 0
    assert noise.best_loss_mean == pytest.approx((0.25 + 0.95 / 0.9 - 1 + 0 + 0) / 4)


def test_k_curve_picks_in_a_and_confirms_in_b() -> None:
    shortlist = {"64x64x64": ["y", "x"], "128x64x64": ["x", "y"]}
    k1, k4, _k8 = k_curve(_frame(), shortlist, "g0")
    assert k1.shapes == 2
    assert k1.select_geomean == pytest.approx(((1 / 0.95) * (1 / 1.2)) ** 0.5)
    assert k1.confirm_geomean == pytest.approx(((1.1 / 0.8) * (1 / 1.2)) ** 0.5)
    # at K=4 shape 64 picks x (fastest in a); shape 128: cuBLAS is faster, the header takes it
    assert k4.confirm_geomean == pytest.approx(((1.1 / 1.0) * (1 / 1.2)) ** 0.5)
    assert k4.or_cublas_confirm == pytest.approx((1.1 / 1.0) ** 0.5)


def test_summary_of_recorded_h200_data() -> None:
    text = timing_summary(DATA_DIR / "h200" / "timing")
    assert "position check: sentinel last/first geomean 0.9981" in text
    assert "g0 (graph-free" in text and "over 64 shapes" in text
    assert "K=8: selection" in text
    assert len(load_timing(DATA_DIR / "h200" / "timing")) > 9_000
