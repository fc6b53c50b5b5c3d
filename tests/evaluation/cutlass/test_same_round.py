"""Same-round cuBLAS rows and the v2 per-configuration view (CRAFTED rows, nothing measured)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from selector_data import FROZEN

from benchspace.evaluation.cutlass.dataset import DatasetError, candidate_table, load_dataset
from benchspace.evaluation.cutlass.same_round import (
    dataset_from_v2,
    load_study_dataset,
    same_round_cublas,
)

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


def test_v2_rows_become_measurements_and_same_round_cublas() -> None:
    dataset = dataset_from_v2(crafted_per_config(), pd.DataFrame(), {"version": 2}, "v2")
    m = dataset.measurements
    assert sorted(m["group"].unique()) == ["256x4096x1024_tnn", "64x64x64_tnn"]
    assert set(m["kernel"]) == {K1} and len(m) == 4  # the split-K row is left out
    assert dataset.provenance["dropped_knob_rows"] == 2
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


def test_v2_rows_need_their_columns() -> None:
    with pytest.raises(DatasetError, match="v2: v2 per-configuration rows lack run"):
        dataset_from_v2(crafted_per_config().drop(columns=["run"]), pd.DataFrame(), {}, "v2")


def test_a_v2_folder_without_the_reader_says_so(tmp_path: Path) -> None:
    (tmp_path / "provenance.json").write_text(
        json.dumps({"format": "benchspace-cutlass-dataset", "version": 2})
    )
    try:
        import benchspace.evaluation.cutlass.dataset_v2  # noqa: F401
    except ModuleNotFoundError:
        with pytest.raises(DatasetError, match="a version 2 dataset, but this checkout has no"):
            load_study_dataset(tmp_path)
    else:
        pytest.skip("the v2 reader is present; its own tests cover v2 folders")


def test_v1_folders_load_as_before() -> None:
    assert load_study_dataset(FROZEN).measurements.equals(load_dataset(FROZEN).measurements)
