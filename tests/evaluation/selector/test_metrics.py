"""Regret, min-rank, hit rates, the random expectation and the cuBLAS ratio, by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchspace.evaluation.selector.metrics import (
    cublas_geomean,
    picks,
    random_pick,
    shape_columns,
    summarise,
)


@pytest.fixture
def frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "group": ["a"] * 4 + ["b"] * 3,
            "M": [64] * 4 + [128] * 3,
            "N": [64] * 4 + [128] * 3,
            "K": [64] * 4 + [128] * 3,
            "layout": "tnn",
            "kernel": ["k1", "k2", "k3", "k4", "k1", "k2", "k3"],
            "tflops": [100.0, 80.0, 80.0, 50.0, 10.0, 20.0, 40.0],
        }
    )


def test_picks_regret_and_min_rank(frame: pd.DataFrame) -> None:
    # Group a picks k3 (80 of 100): regret 0.2; k2 ties at 80, so min-rank is 2.
    # Group b picks k3, its best: regret 0, rank 1.
    out = picks(frame, [1.0, 2.0, 3.0, 0.0, 0.0, 1.0, 5.0])
    assert out["group"].tolist() == ["a", "b"]
    assert out["kernel"].tolist() == ["k3", "k3"]
    assert out["regret"].tolist() == pytest.approx([0.2, 0.0])
    assert out["rank"].tolist() == [2, 1]
    assert out["candidates"].tolist() == [4, 3]
    assert out["M"].tolist() == [64, 128]


def test_score_ties_take_the_first_row_and_nan_never_wins(frame: pd.DataFrame) -> None:
    out = picks(frame, [np.nan, 1.0, 1.0, 0.0, 2.0, 2.0, np.nan])
    assert out["kernel"].tolist() == ["k2", "k1"]


def test_summary(frame: pd.DataFrame) -> None:
    s = summarise("m", picks(frame, [1.0, 2.0, 3.0, 0.0, 0.0, 1.0, 5.0]))
    assert s.groups == 2
    assert (s.mean, s.median, s.max) == pytest.approx((0.1, 0.1, 0.2))
    assert s.p95 == pytest.approx(0.19)
    assert (s.top1, s.top5) == (0.5, 1.0)
    assert s.cublas_geomean is None


def test_random_pick_is_the_exact_expectation(frame: pd.DataFrame) -> None:
    out = random_pick(frame)
    # a: losses 0, .2, .2, .5 -> .225; ranks 1, 2, 2, 4 -> hit1 .25, hit5 1.
    # b: losses .75, .5, 0 -> .41667; hit1 1/3.
    assert out["regret"].tolist() == pytest.approx([0.225, 1.25 / 3])
    assert out["hit1"].tolist() == pytest.approx([0.25, 1 / 3])
    assert out["hit5"].tolist() == [1.0, 1.0]
    assert out["tflops"].tolist() == pytest.approx([77.5, 70 / 3])
    s = summarise("random", out)
    assert s.top1 == pytest.approx((0.25 + 1 / 3) / 2)


def test_cublas_geomean(frame: pd.DataFrame) -> None:
    cublas = pd.DataFrame(
        {
            "M": [64, 128],
            "N": [64, 128],
            "K": [64, 128],
            "layout": "tnn",
            "cublas_tflops": [50.0, 80.0],
        }
    )
    chosen = picks(frame, [1.0, 2.0, 3.0, 0.0, 0.0, 1.0, 5.0])
    # 80/50 = 1.6 and 40/80 = 0.5: geomean sqrt(0.8).
    assert cublas_geomean(chosen, cublas) == pytest.approx(np.sqrt(0.8))
    rand = random_pick(frame).merge(shape_columns(frame), on="group")
    assert cublas_geomean(rand, cublas) == pytest.approx(np.sqrt(77.5 / 50 * (70 / 3) / 80))
    assert cublas_geomean(chosen, cublas.iloc[0:0]) is None
