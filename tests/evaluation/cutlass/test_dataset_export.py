"""From a study sweep's store to dataset files that load: run through the fake driver."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from benchspace.evaluation.cutlass.dataset_export import split_config
from benchspace.evaluation.cutlass.dataset_read import load_dataset
from benchspace.harness.cli import main

KERNELS = [
    "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_128x128x64_1x2x1_0_tnn_align8_warpspecialized_pingpong_epi_tma",
    "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_128x256x64_1x1x1_0_tnn_align8_warpspecialized_cooperative_epi_tma",
    "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_64x128x64_1x1x1_0_tnn_align8_warpspecialized_pingpong_epi_nosmem",
]  # fmt: skip


def test_split_config_fills_the_driver_defaults() -> None:
    assert split_config("k") == ("k", "H", 1)
    assert split_config("k:M:4") == ("k", "M", 4)


def test_export_writes_a_dataset_that_loads(
    tmp_path: Path, installer: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from benchspace.evaluation.cutlass.space import build_space

    (tmp_path / "kernels.txt").write_text("\n".join(KERNELS) + "\n")
    shapes = {
        "gpu": "h200",
        "train": [{"M": 512, "N": 512, "K": 512, "classes": ["interior"]}],
        "eval": [{"M": 1024, "N": 256, "K": 128, "classes": ["boundary"]}],
    }
    space = tmp_path / "space.json"
    space.write_text(json.dumps(build_space(shapes, "kernels.txt", 3, budget=2)))
    build = tmp_path / "build"
    installer(build, "cutlass_bench", "fake_cutlass_driver.py")
    monkeypatch.setenv("FAKE_CUTLASS_FAIL", "cannot_implement:128x256x64")
    store = tmp_path / "store.sqlite"
    code = main(
        ["tune", "--space", str(space), "--build-dir", str(build), "--store", str(store),
         "--out", str(tmp_path / "profile.json"), "--quiet", "--allow-failures"]
    )  # fmt: skip
    assert code == 0
    index = {"kernels": {k: {"library": "libcb_x.so", "spill_stores": 0} for k in KERNELS}}
    (tmp_path / "batches.json").write_text(json.dumps(index))
    (tmp_path / "device.json").write_text(json.dumps({"gpu": "NVIDIA H200", "driver": "580"}))
    out = tmp_path / "data"
    code = main(
        ["cutlass", "export", "--space", str(space), "--store", str(store), "--index",
         str(tmp_path / "batches.json"), "--device-info", str(tmp_path / "device.json"),
         "--note", "fake", "--out", str(out)]
    )  # fmt: skip
    assert code == 0
    dataset = load_dataset(out)
    m = dataset.measurements
    assert sorted(m["split"].unique()) == ["eval", "train"]
    assert len(m[m["split"] == "train"]) == 2  # the sample's budget
    assert len(m[m["split"] == "eval"]) == 3  # exhaustive
    failed = m[m["kernel"].str.contains("128x256x64")]
    assert set(failed["status"]) == {"cannot_implement"} and failed["tflops"].isna().all()
    assert (m.loc[m["status"] == "ok", "tflops"] > 0).all()
    assert dataset.provenance["gpu"] == "NVIDIA H200" and dataset.provenance["runs"][0]["note"]
