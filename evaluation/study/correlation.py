"""Global versus within-group rank correlation of features with throughput (the study's Tables 3-4).

Reconstruction of the lost formula: for a feature ``x``, the global Spearman
``rho = rho_S({x(g, c)}, {T(g, c)})`` pools every (group, candidate) row, while the
within-group correlation is ``rho_g = rho_S({x(c)}_{c in C_g}, {T(c)}_{c in C_g})`` for one
shape-layout group ``g``. A group is computable for ``x`` when both ``x`` and ``T`` vary in it
(at least 3 candidates). Tables report the mean (and median) of ``rho_g`` over computable
groups and the share of them with ``rho_g > 0``. Pooled correlations mostly measure how much
work a problem has; within-group ones measure how well ``x`` separates good candidates from
bad ones for the same problem.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from benchspace.evaluation.cutlass.hardware import Hardware
from benchspace.evaluation.cutlass.shapes import GEOMETRIES, geometry_tags, intensity, size_tag

MIN_CANDIDATES = 3
SPLITS = ("train", "eval", "all")


def _spearman_columns(x: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Spearman rho of each column of ``x`` with ``t`` (NaN where either side is constant)."""
    rx = rankdata(x, axis=0)
    rt = rankdata(t)
    rx = rx - rx.mean(axis=0)
    rt = rt - rt.mean()
    denom = np.sqrt((rx**2).sum(axis=0) * (rt**2).sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = (rx * rt[:, None]).sum(axis=0) / denom
    return np.where(denom > 0, rho, np.nan)


def _clean(x: np.ndarray) -> np.ndarray:
    # Ranks need finite numbers; inf keeps its order through the largest finite value + 1.
    finite = np.isfinite(x)
    if finite.all():
        return x
    big = np.nanmax(np.abs(np.where(finite, x, np.nan)), axis=0) + 1.0
    big = np.where(np.isfinite(big), big, 1.0)
    out = np.where(np.isposinf(x), big, x)
    out = np.where(np.isneginf(out), -big, out)
    return np.where(np.isnan(out), 0.0, out)


def within_group_rho(
    features: pd.DataFrame, labels: pd.DataFrame, columns: Sequence[str]
) -> pd.DataFrame:
    """``rho_g`` per group (rows) and feature (columns); NaN where not computable."""
    x_all = _clean(features[list(columns)].to_numpy(dtype=np.float64))
    t_all = labels["tflops"].to_numpy(dtype=np.float64)
    out = {}
    for group, rows in labels.groupby("group", sort=True).indices.items():
        if len(rows) < MIN_CANDIDATES:
            continue
        out[group] = _spearman_columns(x_all[rows], t_all[rows])
    return pd.DataFrame.from_dict(out, orient="index", columns=list(columns))


def correlation_table(
    features: pd.DataFrame, labels: pd.DataFrame, columns: Sequence[str]
) -> pd.DataFrame:
    """Per feature: global rho, mean and median rho_g, share of groups with rho_g > 0, groups."""
    x = _clean(features[list(columns)].to_numpy(dtype=np.float64))
    global_rho = _spearman_columns(x, labels["tflops"].to_numpy(dtype=np.float64))
    per_group = within_group_rho(features, labels, columns)
    computable = per_group.notna().sum()
    table = pd.DataFrame(
        {
            "feature": list(columns),
            "global_rho": global_rho,
            "mean_rho_g": per_group.mean().to_numpy(),
            "median_rho_g": per_group.median().to_numpy(),
            "share_positive": ((per_group > 0).sum() / computable.where(computable > 0)).to_numpy(),
            "groups": computable.to_numpy().astype(np.int64),
        }
    )
    order = table["mean_rho_g"].abs().fillna(-1).sort_values(ascending=False, kind="stable").index
    return table.loc[order].reset_index(drop=True)


def split_correlation(
    features: pd.DataFrame,
    labels: pd.DataFrame,
    columns: Sequence[str],
    split: str = "train",
    exhaustive_only: bool = False,
) -> tuple[pd.DataFrame, int]:
    """The :func:`correlation_table` over the groups of ``split`` (``all``: every group), only the
    exhaustive ones when asked (``labels["exhaustive"]``); with the number of groups used.

    Columns that do not vary over the chosen rows are left out.
    """
    if split not in SPLITS:
        raise ValueError(f"split {split!r} is not one of {', '.join(SPLITS)}")
    keep = np.ones(len(labels), dtype=bool) if split == "all" else labels["split"].eq(split)
    if exhaustive_only:
        keep &= labels["exhaustive"].to_numpy(dtype=bool)
    mask = np.asarray(keep, dtype=bool)
    x, y = features[mask], labels[mask]
    varying = [c for c in columns if x[c].nunique() > 1]
    return correlation_table(x, y, varying), int(y["group"].nunique())


def regime_tags(m: int, n: int, k: int, hw: Hardware) -> list[str]:
    """The partitions a shape belongs to: its size, its geometries and its intensity regime."""
    geometry = [g for g in geometry_tags(m, n, k) if g in GEOMETRIES]
    regime = "compute_bound" if intensity(m, n, k) >= hw.ridge_flops_per_byte else "memory_bound"
    return [size_tag(m, n, k), *geometry, regime]


PARTITIONS: tuple[str, ...] = (
    "small",
    "medium",
    "large",
    *GEOMETRIES,
    "compute_bound",
    "memory_bound",
)


def regime_table(
    features: pd.DataFrame, labels: pd.DataFrame, columns: Sequence[str], hw: Hardware
) -> pd.DataFrame:
    """Mean ``rho_g`` of each feature within each partition (size, geometry, intensity regime).

    Columns are :data:`PARTITIONS` (a shape can be both tall and skinny-K); the ``groups`` row
    holds each partition's number of groups. Partitions without groups are dropped.
    """
    per_group = within_group_rho(features, labels, columns)
    shapes = labels.groupby("group", sort=True)[["M", "N", "K"]].first()
    members: dict[str, list[str]] = {p: [] for p in PARTITIONS}
    for group, (m, n, k) in shapes.iterrows():
        if group not in per_group.index:
            continue
        for tag in regime_tags(int(m), int(n), int(k), hw):
            members[tag].append(str(group))
    table = pd.DataFrame(
        {p: per_group.loc[g].mean() for p, g in members.items() if g}, index=list(columns)
    )
    counts = pd.DataFrame({p: [len(g)] for p, g in members.items() if g}, index=["groups"])
    return pd.concat([table, counts])
