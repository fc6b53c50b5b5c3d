"""Regret of a selector's picks against the best measured kernel, and the baselines' regret.

Reconstruction of the selection study's definitions (its formulas were lost; the prose says):
the selector picks ``c_hat(g) = argmax_c f(x(g, c))`` among the measured candidates of group
``g`` and loses ``R(g) = 1 - T(c_hat) / T*_g`` with ``T*_g = max_c T(g, c)``; ``R = 0`` exactly
when the pick is a measured maximiser. ``rank(c)`` is the position by measured ``T`` with
minimum-rank ties (1 + the number of strictly faster candidates), and the top-k hit rate is
the share of groups with ``rank(c_hat) <= k``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

TOP_K = (1, 5)


@dataclass(frozen=True, kw_only=True, slots=True)
class RegretSummary:
    """Aggregate regret of one selector over a set of groups."""

    name: str
    groups: int
    mean: float
    median: float
    p95: float
    max: float
    top1: float
    top5: float
    cublas_geomean: float | None
    """Geometric mean over groups of ``T(pick) / T(cuBLAS)``, where cuBLAS was measured."""
    cublas_best_geomean: float | None = None
    """The same against the best of cuBLASLt's top-N algorithms (a cuBLASLt autotune)."""


def picks(frame: pd.DataFrame, score: np.ndarray | pd.Series) -> pd.DataFrame:
    """Per group: the argmax-score candidate, its throughput, the group's best, regret and rank.

    ``frame`` holds ``group``, ``kernel`` and ``tflops`` (and optionally M, N, K, layout, which
    are carried along); ties in score go to the first row of the group.
    """
    data = frame.assign(_score=np.asarray(score, dtype=np.float64))
    data["_score"] = data["_score"].where(np.isfinite(data["_score"]), -np.inf)
    best_t = data.groupby("group", sort=True)["tflops"].max()
    chosen = data.loc[data.groupby("group", sort=True)["_score"].idxmax()].set_index("group")
    faster = data.merge(chosen["tflops"].rename("_pick"), left_on="group", right_index=True)
    rank = (faster["tflops"] > faster["_pick"]).groupby(faster["group"]).sum() + 1
    out = pd.DataFrame(
        {
            "kernel": chosen["kernel"],
            "tflops": chosen["tflops"],
            "best_tflops": best_t,
            "regret": 1.0 - chosen["tflops"] / best_t,
            "rank": rank.astype(np.int64),
            "candidates": data.groupby("group", sort=True).size(),
        }
    )
    for col in ("M", "N", "K", "layout", "raster", "swizzle"):
        if col in chosen.columns:
            out[col] = chosen[col]
    return out.rename_axis("group").reset_index()


def random_pick(frame: pd.DataFrame) -> pd.DataFrame:
    """The expectation of a uniformly random pick per group (exact, not sampled).

    ``regret`` is the mean of ``1 - T/T*`` over the group; ``hit1``/``hit5`` the chance that
    the pick's min-rank is within 1/5; ``tflops`` the expected throughput.
    """
    data = frame[["group", "tflops"]].copy()
    grouped = data.groupby("group", sort=True)["tflops"]
    data["best"] = grouped.transform("max")
    data["rank"] = grouped.rank(method="min", ascending=False)
    data["loss"] = 1.0 - data["tflops"] / data["best"]
    agg = data.groupby("group", sort=True).agg(
        tflops=("tflops", "mean"),
        best_tflops=("best", "first"),
        regret=("loss", "mean"),
        hit1=("rank", lambda r: float(np.mean(r <= 1))),
        hit5=("rank", lambda r: float(np.mean(r <= 5))),
        candidates=("tflops", "size"),
    )
    return agg.reset_index()


def cublas_geomean(
    chosen: pd.DataFrame,
    cublas: pd.DataFrame,
    column: str = "tflops",
    baseline: str = "cublas_tflops",
) -> float | None:
    """Geometric mean of ``chosen[column] / cublas[baseline]`` over groups with a cuBLAS time
    (``baseline`` ``cublas_best_tflops``: against cuBLASLt's best of its top-N)."""
    if (
        cublas.empty
        or baseline not in cublas.columns
        or not {"M", "N", "K", "layout"} <= set(chosen.columns)
    ):
        return None
    joined = chosen.merge(cublas, on=["M", "N", "K", "layout"], how="inner")
    ratio = joined[column] / joined[baseline]
    ratio = ratio[np.isfinite(ratio) & (ratio > 0)]
    return float(np.exp(np.mean(np.log(ratio)))) if len(ratio) else None


def summarise(
    name: str, per_group: pd.DataFrame, cublas: pd.DataFrame | None = None
) -> RegretSummary:
    """Mean, median, p95 and max regret, top-1/top-5 hit rates and the cuBLAS geomean.

    ``per_group`` is a :func:`picks` result (hit rates from ``rank``) or a :func:`random_pick`
    result (hit rates as expectations ``hit1``/``hit5``).
    """
    regret = per_group["regret"].to_numpy(dtype=np.float64)
    if "rank" in per_group:
        ranks = per_group["rank"].to_numpy()
        top1, top5 = float(np.mean(ranks <= 1)), float(np.mean(ranks <= 5))
    else:
        top1, top5 = float(per_group["hit1"].mean()), float(per_group["hit5"].mean())
    empty = len(regret) == 0
    return RegretSummary(
        name=name,
        groups=len(regret),
        mean=float("nan") if empty else float(np.mean(regret)),
        median=float("nan") if empty else float(np.median(regret)),
        p95=float("nan") if empty else float(np.percentile(regret, 95)),
        max=float("nan") if empty else float(np.max(regret)),
        top1=top1 if not empty else float("nan"),
        top5=top5 if not empty else float("nan"),
        cublas_geomean=None if cublas is None else cublas_geomean(per_group, cublas),
        cublas_best_geomean=(
            None
            if cublas is None
            else cublas_geomean(per_group, cublas, baseline="cublas_best_tflops")
        ),
    )


def shape_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """Per group its M, N, K and layout (to join cuBLAS onto a :func:`random_pick` result)."""
    return frame.groupby("group", sort=True)[["M", "N", "K", "layout"]].first().reset_index()
