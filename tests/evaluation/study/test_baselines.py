"""Baseline rows and the CUTLASS-or-cuBLAS variant (CRAFTED numbers, nothing measured)."""

from __future__ import annotations

import pandas as pd
import pytest
from selector_data import FROZEN

from benchspace.evaluation.cutlass.dataset_read import load_dataset
from benchspace.evaluation.cutlass.hardware import load_hardware
from benchspace.evaluation.study.baselines import baseline_rows, with_cublas
from benchspace.evaluation.study.run import prepare


def _picks(shapes: list[tuple[int, int, int]], tflops: list[float]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "group": [f"{m}x{n}x{k}_tnn" for m, n, k in shapes],
            "M": [s[0] for s in shapes],
            "N": [s[1] for s in shapes],
            "K": [s[2] for s in shapes],
            "layout": "tnn",
            "kernel": "k",
            "tflops": tflops,
        }
    )


def test_cublas_is_chosen_where_the_nearest_training_shape_says_so() -> None:
    # Training: cuBLAS ahead at the large shape, behind at the small one.
    train = _picks([(8192, 8192, 8192), (64, 64, 64)], [500.0, 20.0])
    held = _picks([(6144, 8192, 8192), (96, 64, 64)], [400.0, 30.0])
    cublas = pd.DataFrame(
        {
            "M": [8192, 64, 6144, 96], "N": [8192, 64, 8192, 64], "K": [8192, 64, 8192, 64],
            "layout": "tnn", "cublas_tflops": [600.0, 10.0, 450.0, 15.0],
        }
    )  # fmt: skip
    y_ev = pd.DataFrame({"group": held["group"], "tflops": [420.0, 30.0]})
    row = with_cublas("sel", held, train, y_ev, cublas)
    assert row is not None and row.name == "sel or cuBLAS" and row.groups == 2
    # Large: cuBLAS 450 against the best of 420 (kernels) and 450: no regret; small: the pick
    # is the best (30 > 15).
    assert row.mean == pytest.approx(0.0) and row.top1 == 1.0
    assert row.cublas_geomean == pytest.approx((1.0 * 2.0) ** 0.5)
    assert with_cublas("sel", held, train, y_ev, cublas.iloc[:0]) is None


def test_baseline_rows_on_the_frozen_sample() -> None:
    dataset, hw = load_dataset(FROZEN), load_hardware("h200")
    prepared = prepare(dataset, hw)
    ev = (prepared.labels["split"] == "eval").to_numpy()
    rows, chosen, notes = baseline_rows(
        prepared.features[ev], prepared.labels[ev], prepared.labels[~ev], hw, prepared.cublas
    )
    names = [r.name for r in rows]
    assert names[:2] == ["fixed kernel", "static score (H200 time)"]
    assert all(r.cublas_geomean is None for r in rows)  # v1: no same-round cuBLAS
    assert notes[0].startswith("fixed kernel: cutlass3x_sm90_")
    assert len(chosen) == len(rows)
