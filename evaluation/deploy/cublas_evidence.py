"""What a dataset measured about cuBLASLt per shape: the heuristic, and every configuration of
its top N by pinned key, timed in the kernels' own rounds (dataset v2 on).

Per shape: ``heuristic_tflops`` (``cublas:heuristic``, what a plain cuBLAS call runs; the mean
over the shape's runs), its CUTLASS candidates' throughput (the dataset's candidate table),
and per pinned key (:mod:`evaluation.deploy.pinned`, from the rows' ``cublas_algo`` column)
``ratio``: the geometric mean over the shape's runs of ``T(key) / T(cublas:heuristic)`` in the
same run. Whether a configuration is a candidate at a shape is cuBLASLt's business (its
heuristic lists at most 8 per shape); a key never listed at a shape has no figure there.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchspace.evaluation.cutlass.dataset import Dataset, candidate_table
from benchspace.evaluation.deploy.pinned import from_cublas_algo
from benchspace.evaluation.deploy.shortlist import CUBLAS_HEURISTIC
from benchspace.harness.errors import UsageError

SHAPE = ["M", "N", "K"]


@dataclass(frozen=True, kw_only=True)
class CublasEvidence:
    """Measured figures of one split's shapes (see the module docstring)."""

    shapes: pd.DataFrame
    """M, N, K, heuristic_tflops: one row per shape with a same-round heuristic."""
    cutlass: pd.DataFrame
    """M, N, K, kernel, raster, swizzle, tflops: the shapes' measured CUTLASS candidates."""
    configs: pd.DataFrame
    """M, N, K, key, ratio: each pinned key measured at a shape, against the heuristic."""
    cublaslt_version: int
    """The cuBLASLt version the rows were measured with (0: the dataset does not say)."""
    split: str


def config_ratios(rows: pd.DataFrame) -> pd.DataFrame:
    """Per (M, N, K, key): the geometric mean over runs of the same-run ratio to the heuristic.

    ``rows``: the driver rows (run, config, M, N, K, status, tflops, cublas_algo)."""
    ok = rows[
        rows["config"].astype(str).str.startswith("cublas:")
        & (rows["status"].astype(str) == "ok")
        & (pd.to_numeric(rows["tflops"], errors="coerce") > 0)
        & rows["cublas_algo"].notna()
    ]
    if ok.empty:
        return pd.DataFrame(columns=[*SHAPE, "key", "ratio"])
    ok = ok.assign(
        key=[from_cublas_algo(str(t)).key for t in ok["cublas_algo"]],
        tflops=pd.to_numeric(ok["tflops"]),
    )
    for c in SHAPE:
        ok[c] = ok[c].astype(np.int64)
    heur = ok[ok["config"] == CUBLAS_HEURISTIC].groupby("run")["tflops"].mean()
    ok = ok[ok["run"].isin(heur.index)]
    ok = ok.assign(logr=np.log(ok["tflops"].to_numpy() / ok["run"].map(heur).to_numpy()))
    # One figure per (run, key): a key listed twice in a run (algo<i> and the heuristic) once.
    per_run = ok.groupby(["run", *SHAPE, "key"], sort=True)["logr"].mean().reset_index()
    out = per_run.groupby([*SHAPE, "key"], sort=True)["logr"].mean()
    return pd.DataFrame({"ratio": np.exp(out)}).reset_index()


def cublas_evidence(dataset: Dataset, split: str) -> CublasEvidence:
    """The figures of ``split``'s shapes (``train`` or ``eval``)."""
    if not dataset.has_rounds or "cublas_algo" not in dataset.rows.columns:
        raise UsageError(
            f"{dataset.path}: version {dataset.version} data has no same-round cuBLASLt rows "
            "with their algorithm attributes; use dataset v2 on (e.g. evaluation/data/h200/v2)"
        )
    rows = dataset.rows[dataset.rows["split"].astype(str) == split]
    ok = rows[(rows["config"] == CUBLAS_HEURISTIC) & (rows["status"].astype(str) == "ok")]
    heuristic = (
        ok.assign(**{c: ok[c].astype(np.int64) for c in SHAPE}, tflops=ok["tflops"].astype(float))
        .groupby(SHAPE, sort=True)["tflops"]
        .mean()
        .rename("heuristic_tflops")
        .reset_index()
    )
    table = candidate_table(dataset)
    cutlass = table[table["split"] == split][[*SHAPE, "kernel", "raster", "swizzle", "tflops"]]
    version = dataset.provenance.get("cublaslt_version")
    return CublasEvidence(
        shapes=heuristic,
        cutlass=cutlass.reset_index(drop=True),
        configs=config_ratios(rows),
        cublaslt_version=int(version) if isinstance(version, int | float) else 0,
        split=split,
    )
