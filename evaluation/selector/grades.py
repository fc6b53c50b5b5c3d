"""Per-group targets of the selector: normalised throughput, noise bands, grades, relevance.

Reconstruction of the selection study's definitions (its formulas were lost; the prose says):

* ``T*_g = max_c T(g, c)`` and ``y(g, c) = T(g, c) / T*_g``, so ``y = 1`` for the best
  measured candidate of a group and ``y < 1`` for the others;
* sort a group by decreasing ``T`` and merge adjacent entries ``i`` and ``i+1`` into one band
  while ``T_i - T_{i+1} < 2 * s_pool(i, i+1)`` with the pooled standard deviation of two
  equally repeated measurements ``s_pool = sqrt((s_i^2 + s_{i+1}^2) / 2)``; bands are
  contiguous in the sorted order, ``b(c) = 0`` for the top band;
* grade ``gamma(g, c) = G_max - b(c)`` with ``G_max = 31`` (clipped at 0 for groups with more
  than 32 bands);
* top-focused relevance with ``B`` bands: ``rel = max(0, gamma - (G_max - B))``, i.e.
  ``B - b`` for the top ``B`` bands and 0 below them (``B = 2``: 2, 1, 0, 0, ...).

Linear grades (:func:`linear_grades`) rank by throughput relative to the group's best instead of
by noise bands: ``rel = floor(L * clip((y - y_0) / (1 - y_0), 0, 1))`` with ``L`` levels and the
floor ``y_0``, so every candidate within ``1 - y_0`` of the best earns a grade that grows with
``y`` (the best ``L``), and the list below the floor is one grade 0. The top-band labels give two
or three candidates per group a nonzero grade; linear grades order the whole top of the list.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

G_MAX = 31
DEFAULT_BANDS = 2
NOISE_MULTIPLIER = 2.0
"""Adjacent candidates closer than this many pooled standard deviations share a band."""


def band_indices(tflops: np.ndarray, sd: np.ndarray) -> np.ndarray:
    """Band index of each candidate of one group (0 = the top band), in input order.

    Equal throughputs always share a band; a missing or negative spread counts as 0, so such
    neighbours merge only when their throughputs are equal.
    """
    t = np.asarray(tflops, dtype=np.float64)
    s = np.nan_to_num(np.asarray(sd, dtype=np.float64), nan=0.0, posinf=0.0, neginf=0.0)
    s = np.maximum(s, 0.0)
    if t.size == 0:
        return np.zeros(0, dtype=np.int64)
    order = np.argsort(-t, kind="stable")
    ts, ss = t[order], s[order]
    gap = ts[:-1] - ts[1:]
    pooled = np.sqrt((ss[:-1] ** 2 + ss[1:] ** 2) / 2.0)
    new_band = ~((gap < NOISE_MULTIPLIER * pooled) | (gap == 0))
    bands_sorted = np.concatenate([[0], np.cumsum(new_band)]).astype(np.int64)
    out = np.empty_like(bands_sorted)
    out[order] = bands_sorted
    return out


def relevance(band: np.ndarray, bands: int = DEFAULT_BANDS) -> np.ndarray:
    """Top-focused relevance: ``bands - b`` for the top ``bands`` bands, 0 below them."""
    if bands < 1:
        raise ValueError(f"bands {bands!r} must be at least 1")
    grade = G_MAX - np.asarray(band, dtype=np.int64)
    return np.maximum(grade - (G_MAX - bands), 0).astype(np.int64)


GRADINGS = ("bands", "linear")
"""Relevance from noise bands (:func:`relevance`) or from ``y`` (:func:`linear_grades`)."""
DEFAULT_LEVELS = 31
DEFAULT_FLOOR = 0.7


def linear_grades(
    y: np.ndarray, levels: int = DEFAULT_LEVELS, floor: float = DEFAULT_FLOOR
) -> np.ndarray:
    """``floor(levels * clip((y - floor) / (1 - floor), 0, 1))``; see the module docstring.

    ``levels`` is at most :data:`G_MAX` (XGBoost's exponential NDCG gain needs grades <= 31).
    """
    if not 1 <= levels <= G_MAX:
        raise ValueError(f"levels {levels!r} must be in 1..{G_MAX}")
    if not 0.0 <= floor < 1.0:
        raise ValueError(f"floor {floor!r} must be in [0, 1)")
    scaled = np.clip((np.asarray(y, dtype=np.float64) - floor) / (1.0 - floor), 0.0, 1.0)
    return np.floor(levels * scaled + 1e-9).astype(np.int64)


def label_groups(candidates: pd.DataFrame, bands: int = DEFAULT_BANDS) -> pd.DataFrame:
    """Add ``y``, ``band``, ``grade`` and ``rel`` to a candidate table (keeps index and order).

    ``candidates`` needs ``group``, ``tflops`` and ``tflops_sd`` columns (as
    :func:`benchspace.evaluation.cutlass.dataset.candidate_table` gives).
    """
    out = candidates.copy()
    best = out.groupby("group", sort=False)["tflops"].transform("max")
    out["y"] = out["tflops"] / best
    band = np.zeros(len(out), dtype=np.int64)
    positions = out.groupby("group", sort=False).indices
    t = out["tflops"].to_numpy(dtype=np.float64)
    s = out["tflops_sd"].to_numpy(dtype=np.float64)
    for rows in positions.values():
        band[rows] = band_indices(t[rows], s[rows])
    out["band"] = band
    out["grade"] = np.maximum(G_MAX - band, 0)
    out["rel"] = relevance(band, bands)
    return out


def within_fraction(y: np.ndarray, epsilon: float) -> float:
    """Share of a group's candidates within ``epsilon`` of its best: ``y >= 1 - epsilon``."""
    values = np.asarray(y, dtype=np.float64)
    return float(np.mean(values >= 1.0 - epsilon - 1e-12)) if values.size else float("nan")
