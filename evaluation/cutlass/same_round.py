"""cuBLAS timed in the same rounds as the kernels, and the v2 per-configuration view as a Dataset.

Only same-round cuBLAS rows make a fair "vs cuBLAS" figure: the v1 ``cublas.csv.gz`` was timed
in a separate process after heating, at burst clocks, so it is never used as a baseline here.
A cublas table row is same-round when its ``same_round`` column is true; dataset v2 rows are
(the driver times cuBLASLt as configurations of the shape's own rounds).

:func:`dataset_from_v2` turns the v2 reader's per-configuration medians (one row per run and
configuration: ``run, split, pass, M, N, K, config, ms, kernel, raster, swizzle, splits,
decomposition, tflops``, optionally ``ms_stdev``) into the study's :class:`Dataset`: kernel rows
become measurements (groups ``MxNxK_layout``), ``cublas:heuristic`` and the best
``cublas:algo<i>`` of each run become same-round cuBLAS rows. Stream-K split and
decomposition settings other than the defaults are not candidates of the selector yet and are
left out (counted in the provenance's ``dropped_knob_rows``). Measurements keep their ``run``, so
that a shape timed in two runs shows how well a run's result repeats
(:mod:`benchspace.evaluation.study.repeatability`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchspace.evaluation.cutlass.catalogue import parse_kernel_name
from benchspace.evaluation.cutlass.dataset import Dataset, DatasetError

CUBLAS = "cublas"
HEURISTIC = "cublas:heuristic"
SHAPE = ["M", "N", "K", "layout"]
PER_CONFIG_COLUMNS = ("run", "split", "M", "N", "K", "config", "kernel", "raster", "swizzle")


def same_round_cublas(dataset: Dataset) -> pd.DataFrame:
    """Per shape: ``cublas_tflops`` (the cuBLASLt heuristic's pick, what torch.matmul runs) and
    ``cublas_best_tflops`` (the best of its top-N), from same-round rows only; else empty."""
    out_columns = [*SHAPE, "cublas_tflops", "cublas_best_tflops"]
    c = dataset.cublas
    if c.empty or "same_round" not in c.columns:
        return pd.DataFrame(columns=out_columns)
    c = c[c["same_round"].astype(str).str.lower().isin(["true", "1"])].copy()
    if c.empty:
        return pd.DataFrame(columns=out_columns)
    for col in ("M", "N", "K"):
        c[col] = c[col].astype(np.int64)
    c["layout"] = c["layout"].astype(str)
    method = c["method"].astype(str) if "method" in c.columns else pd.Series(HEURISTIC, c.index)
    heuristic = c[method == HEURISTIC].groupby(SHAPE, sort=True)["tflops"].mean()
    best = c.groupby(SHAPE, sort=True)["tflops"].max()
    out = pd.DataFrame({"cublas_tflops": heuristic, "cublas_best_tflops": best}).dropna()
    return out.reset_index()[out_columns]


def _layout(kernels: pd.Series) -> pd.Series:
    layouts = {name: parse_kernel_name(name).layout for name in pd.unique(kernels)}
    return kernels.map(layouts)


def dataset_from_v2(
    per_config: pd.DataFrame,
    kernels: pd.DataFrame,
    provenance: Mapping[str, Any],
    path: str | Path,
) -> Dataset:
    """The study's view of a v2 dataset; see the module docstring."""
    missing = [c for c in PER_CONFIG_COLUMNS if c not in per_config.columns]
    if missing:
        raise DatasetError(f"{path}: v2 per-configuration rows lack {', '.join(missing)}")
    rows = per_config.copy()
    is_cublas = rows["kernel"].astype(str) == CUBLAS
    kern = rows[~is_cublas].copy()
    default = np.ones(len(kern), dtype=bool)
    if "splits" in kern.columns:
        default &= kern["splits"].fillna(1).astype(int).to_numpy() == 1
    if "decomposition" in kern.columns:
        default &= kern["decomposition"].fillna("H").astype(str).to_numpy() == "H"
    dropped = int((~default).sum())
    kern = kern[default]
    kern["layout"] = _layout(kern["kernel"].astype(str))
    ok = np.isfinite(kern["tflops"]) & (kern["tflops"] > 0)
    kern["status"] = np.where(ok, "ok", "failed")
    kern["ms_mean"] = kern["ms"]
    kern["ms_stdev"] = kern["ms_stdev"] if "ms_stdev" in kern.columns else 0.0
    kern["group"] = (
        kern["M"].astype(str) + "x" + kern["N"].astype(str) + "x" + kern["K"].astype(str)
        + "_" + kern["layout"].astype(str)
    )  # fmt: skip
    kern["shape_class"] = kern["shape_class"].fillna("") if "shape_class" in kern else ""
    measurements = kern[
        ["group", "M", "N", "K", "layout", "split", "shape_class", "kernel", "raster", "swizzle",
         "status", "tflops", "ms_mean", "ms_stdev", "run"]
    ].reset_index(drop=True)  # fmt: skip
    for col in ("M", "N", "K", "swizzle"):
        measurements[col] = measurements[col].astype(np.int64)
    for col in ("group", "layout", "split", "kernel", "raster", "status", "shape_class", "run"):
        measurements[col] = measurements[col].astype(str)
    # cuBLAS rows take the layout of their run's kernels.
    run_layout = kern.groupby("run")["layout"].first()
    cub = rows[is_cublas].copy()
    cub["layout"] = cub["run"].map(run_layout)
    cub = cub.dropna(subset=["layout"])
    cub["method"] = np.where(cub["config"].astype(str) == HEURISTIC, HEURISTIC, "cublas:algo")
    cub["same_round"] = True
    cublas = cub[["M", "N", "K", "layout", "tflops", "method", "same_round", "run"]]
    names = sorted(set(measurements["kernel"].astype(str)))
    if kernels.empty or "name" not in kernels.columns:
        kernels = pd.DataFrame({"name": names})
    prov = {**dict(provenance), "dropped_knob_rows": dropped}
    return Dataset(
        path=Path(path),
        provenance=prov,
        measurements=measurements,
        kernels=kernels,
        cublas=cublas.reset_index(drop=True),
    )


V2_READER = "benchspace.evaluation.cutlass.dataset_v2"
"""The module that reads v2 folders (``load_dataset_v2``, ``per_config`` and ``align_runs``:
a shape's runs are put on one clock before they are pooled)."""


def load_study_dataset(path: str | Path) -> Dataset:
    """A dataset folder of either version, keyed by its provenance's ``version``."""
    import importlib
    import json

    from benchspace.evaluation.cutlass.dataset import load_dataset

    folder = Path(path)
    try:
        version = json.loads((folder / "provenance.json").read_text(encoding="utf-8")).get(
            "version"
        )
    except (OSError, ValueError, AttributeError, RecursionError):
        version = None  # load_dataset names the problem
    if version != 2:
        return load_dataset(folder)
    try:
        reader = importlib.import_module(V2_READER)
    except ModuleNotFoundError:
        raise DatasetError(
            f"{folder}: a version 2 dataset, but this checkout has no v2 reader ({V2_READER}); "
            "update benchspace"
        ) from None
    v2 = reader.load_dataset_v2(folder)
    table = reader.align_runs(reader.per_config(v2.rounds))
    return dataset_from_v2(table, v2.kernels, v2.provenance, folder)
