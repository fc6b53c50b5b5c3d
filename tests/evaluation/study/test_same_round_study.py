"""The study and the deployed selector on v2-like data with same-round cuBLAS (CRAFTED: the
frozen synthetic sample re-shaped as v2 per-configuration rows, cuBLAS throughputs invented)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
from selector_data import FROZEN, runs_dataset

from benchspace.evaluation.cutlass.dataset_read import load_dataset
from benchspace.evaluation.cutlass.hardware import load_hardware
from benchspace.evaluation.deploy.kernel_header import CUBLAS, GemmHeaderSpec, choose_dispatch
from benchspace.evaluation.deploy.select import train_selector
from benchspace.evaluation.study.run import StudyOptions, run_study


def crafted_v2() -> pd.DataFrame:
    """Per-configuration rows of the frozen sample plus cuBLAS rows: cuBLAS 30 % ahead of the
    best kernel on shapes with M >= 1024, 30 % behind elsewhere."""
    m = load_dataset(FROZEN).measurements
    m = m[m["status"] == "ok"]
    rows = m.assign(
        run=m["group"], config=m["kernel"], ms=m["ms_mean"], splits=1, decomposition="H"
    )[["run", "split", "M", "N", "K", "config", "kernel", "raster", "swizzle", "splits",
       "decomposition", "ms", "tflops"]]  # fmt: skip
    best = m.groupby("group").agg(M=("M", "first"), N=("N", "first"), K=("K", "first"),
                                  split=("split", "first"), tflops=("tflops", "max"))  # fmt: skip
    factor = np.where(best["M"] >= 1024, 1.3, 0.7)
    cublas = best.assign(
        run=best.index, config="cublas:heuristic", kernel="cublas", raster="H", swizzle=1,
        splits=1, decomposition="H", ms=1.0, tflops=best["tflops"] * factor,
    ).reset_index(drop=True)  # fmt: skip
    return pd.concat([rows, cublas[rows.columns]], ignore_index=True)


def test_the_study_reports_cutlass_only_and_cutlass_or_cublas() -> None:
    dataset = runs_dataset(crafted_v2())
    options = StudyOptions(folds=2, repetitions=2, cross_validation=False, mlp=False)
    result = run_study(dataset, load_hardware("h200"), options)
    names = [s.name for s in result.held_out]
    assert "xgboost rank:ndcg" in names and "xgboost rank:ndcg or cuBLAS" in names
    only = result.held_out[names.index("xgboost rank:ndcg")]
    either = result.held_out[names.index("xgboost rank:ndcg or cuBLAS")]
    assert only.cublas_geomean is not None and either.cublas_geomean is not None
    # Choosing cuBLAS where it is ahead can only help against cuBLAS.
    assert either.cublas_geomean >= only.cublas_geomean - 1e-9
    assert result.oracle_cublas is not None


def test_the_shipped_header_names_cublas_where_it_was_ahead() -> None:
    dataset = runs_dataset(crafted_v2())
    selector = train_selector(dataset, load_hardware("h200"))
    assert selector.cublas is not None and len(selector.cublas) == 14
    spec = dataclasses.replace(GemmHeaderSpec(), max_leaves=16, samples=400, min_samples=2)
    dispatch = choose_dispatch(selector, spec)
    assert dispatch.cublas_leaves >= 1
    ahead = selector.cublas[selector.cublas["cublas_tflops"] > selector.cublas["pick_tflops"]]
    chosen = dispatch.choose(ahead[["M", "N", "K"]].to_numpy())
    assert any(dispatch.choices[c].kernel == CUBLAS for c in chosen)
