"""The committed H200 dataset loads and holds what its provenance says it holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchspace.evaluation.cutlass.dataset_read import load_dataset
from benchspace.evaluation.study.summary import summarise_dataset
from benchspace.evaluation.study.summary_format import render_summary

H200 = Path(__file__).resolve().parents[3] / "evaluation" / "data" / "h200"


def test_committed_dataset_loads_and_summarises() -> None:
    dataset = load_dataset(H200)
    assert dataset.provenance["gpu"] == "NVIDIA H200"
    for key in ("driver", "nvcc", "cutlass_version", "benchspace_commit", "date"):
        assert dataset.provenance[key]
    summary = summarise_dataset(dataset)
    assert summary.groups == {"eval": 16, "train": 60}
    assert summary.kernels >= 600
    assert summary.measurements == sum(summary.by_status.values())
    shapes = summary.shapes
    assert len(shapes) == 16 and (shapes["candidates"] >= 600).all()
    assert ((shapes["within_1pct"] > 0) & (shapes["within_10pct"] <= 1)).all()
    assert shapes["best_vs_cublas"].between(0.5, 3.0).all()
    text = render_summary(summary, "h200")
    assert "GH200 study" in text and "ratio: geometric mean" in text


def test_kernels_table_covers_every_measured_kernel() -> None:
    dataset = load_dataset(H200)
    measured = set(dataset.measurements["kernel"])
    assert measured <= set(dataset.kernels["name"])
    assert not dataset.kernels.loc[dataset.kernels["name"].isin(measured), "spills"].any()


@pytest.mark.parametrize("column", ["sm_clock_mhz", "power_w", "ms_stdev"])
def test_clock_power_and_spread_are_recorded_beside_each_row(column: str) -> None:
    m = load_dataset(H200).measurements
    assert m.loc[m["status"] == "ok", column].notna().all()
