"""What a measured dataset holds, and per evaluation shape how CUTLASS compares with cuBLAS.

Pure: from a loaded Dataset to tables (plain data); :mod:`summary_format` renders them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchspace.evaluation.cutlass.dataset import Dataset, cublas_table

EPSILONS = (0.01, 0.05, 0.10)


@dataclass(frozen=True, kw_only=True)
class DatasetSummary:
    """Counts, failures and the evaluation-shape table."""

    groups: dict[str, int]
    kernels: int
    measurements: int
    by_status: dict[str, int]
    shapes: pd.DataFrame
    """Per evaluation group: best CUTLASS, cuBLAS, ratio, share within 1/5/10 % of best."""


def summarise_dataset(dataset: Dataset) -> DatasetSummary:
    """Summarise a dataset (the committed files of one GPU)."""
    m = dataset.measurements
    ok = m[m["status"] == "ok"].dropna(subset=["tflops"])
    # One throughput per (group, kernel, knobs): the mean over repeated attempts.
    per = ok.groupby(
        ["split", "group", "M", "N", "K", "kernel", "raster", "swizzle"], as_index=False
    )["tflops"].mean()
    cublas = cublas_table(dataset)
    rows = []
    for (group, mm, nn, kk), frame in per[per["split"] == "eval"].groupby(["group", "M", "N", "K"]):
        best = frame["tflops"].max()
        best_kernel = frame.loc[frame["tflops"].idxmax(), "kernel"]
        row = {
            "group": group,
            "M": int(mm),
            "N": int(nn),
            "K": int(kk),
            "candidates": len(frame),
            "best_tflops": best,
            "best_kernel": str(best_kernel),
        }
        match = cublas[(cublas["M"] == mm) & (cublas["N"] == nn) & (cublas["K"] == kk)]
        cub = float(match["cublas_tflops"].iloc[0]) if not match.empty else np.nan
        row["cublas_tflops"] = cub
        row["best_vs_cublas"] = best / cub if cub == cub else np.nan
        for eps in EPSILONS:
            row[f"within_{round(eps * 100)}pct"] = float(
                (frame["tflops"] >= (1 - eps) * best).mean()
            )
        rows.append(row)
    groups = m.groupby("split")["group"].nunique().to_dict()
    return DatasetSummary(
        groups={str(k): int(v) for k, v in groups.items()},
        kernels=int(m["kernel"].nunique()),
        measurements=len(m),
        by_status={str(k): int(v) for k, v in m["status"].value_counts().items()},
        shapes=pd.DataFrame(rows).sort_values(["M", "N", "K"]) if rows else pd.DataFrame(rows),
    )
