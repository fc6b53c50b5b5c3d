"""Same-round cuBLAS rows and the study's view of runs (CRAFTED rows, nothing measured)."""

from __future__ import annotations

import pandas as pd
import pytest
from selector_data import FROZEN, runs_dataset

from benchspace.evaluation.cutlass.dataset import DatasetError, candidate_table, same_round_cublas
from benchspace.evaluation.cutlass.dataset_read import load_dataset
from benchspace.evaluation.cutlass.dataset_runs import study_tables

PREFIX = "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_"
K1 = PREFIX + "128x128x64_1x2x1_0_tnn_align8_warpspecialized_pingpong_epi_tma"
K2 = PREFIX + "128x256x64_1x2x1_0_tnn_align8_stream_k_warpspecialized_cooperative_epi_tma"


def crafted_per_config() -> pd.DataFrame:
    """Two runs of v2-like per-configuration medians: kernels, a Stream-K knob row, cuBLASLt."""
    rows = []
    for run, (m, n, k), split in (("r1", (256, 4096, 1024), "eval"), ("r2", (64, 64, 64), "train")):
        for config, kernel, raster, swizzle, splits, tflops in (
            (K1, K1, "H", 1, 1, 500.0),
            (f"{K1}:M:2", K1, "M", 2, 1, 520.0),
            (f"{K2}:H:1:k2", K2, "H", 1, 2, 530.0),
            ("cublas:heuristic", "cublas", "H", 1, 1, 510.0),
            ("cublas:algo3", "cublas", "H", 1, 1, 540.0),
        ):
            rows.append(
                {
                    "run": run, "split": split, "pass": "x", "M": m, "N": n, "K": k,
                    "config": config, "kernel": kernel, "raster": raster, "swizzle": swizzle,
                    "splits": splits, "decomposition": "H", "ms": 1.0, "tflops": tflops,
                }
            )  # fmt: skip
    return pd.DataFrame(rows)


def test_v1_cublas_rows_are_never_same_round() -> None:
    dataset = load_dataset(FROZEN)
    assert not dataset.cublas.empty
    assert same_round_cublas(dataset).empty


def test_run_rows_become_measurements_and_same_round_cublas() -> None:
    dataset = runs_dataset(crafted_per_config())
    m = dataset.measurements
    assert sorted(m["group"].unique()) == ["256x4096x1024_tnn", "64x64x64_tnn"]
    assert set(m["kernel"]) == {K1} and len(m) == 4  # the split-K row is left out
    assert study_tables(crafted_per_config(), pd.DataFrame(), "v2")[1] == 2
    table = candidate_table(dataset)
    assert sorted(zip(table["raster"], table["swizzle"], strict=True)) == sorted(
        [("H", 1), ("M", 2)] * 2
    )
    fair = same_round_cublas(dataset)
    assert fair.to_dict(orient="records")[0] == {
        "M": 64, "N": 64, "K": 64, "layout": "tnn",
        "cublas_tflops": 510.0, "cublas_best_tflops": 540.0,
    }  # fmt: skip
    assert len(fair) == 2


def test_run_rows_need_their_columns() -> None:
    with pytest.raises(DatasetError, match="v2: v2 per-configuration rows lack run"):
        study_tables(crafted_per_config().drop(columns=["run"]), pd.DataFrame(), "v2")
