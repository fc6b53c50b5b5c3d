"""The kernel header from measured winners: each tuned shape dispatches to what won there.

Input: a ``benchspace tune`` profile of a ``tune-shapes`` space (one case per user shape,
CUTLASS configurations and cuBLASLt ones timed in the same rounds). Each shape's winner is
its fastest measured configuration; ``cublas:heuristic`` (what a plain cuBLAS call runs)
competes as the ``cublas`` pseudo-kernel. The ``cublas:algo<i>`` rows are reported (the best
of them is what a cuBLASLt autotune gets) but are not dispatch choices: the header cannot name
a cuBLASLt algorithm.

The decision structure is :mod:`evaluation.deploy.dispatch_tree` grown on the measured shapes
themselves, with the shapes' own M, N and K among the candidate edges and one sample per leaf
allowed, so that every distinct measured shape can get its own leaf (budget: one leaf per
shape) and runs its own winner; a shape between them falls in the leaf of a measured
neighbour. ``restrict_to_top`` keeps only each shape's top-k shortlisted candidates (the
prefix of a longer shortlist measured in the same rounds), to read what a smaller K gives.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from benchspace.evaluation.cutlass.driver_csv import parse_config
from benchspace.evaluation.deploy.dispatch_tree import grow_tree
from benchspace.evaluation.deploy.kernel_header import (
    CUBLAS,
    GemmChoice,
    GemmDispatch,
    GemmHeaderSpec,
)
from benchspace.evaluation.deploy.shape_features import feature_matrix, shape_features
from benchspace.evaluation.deploy.shape_sample import ShapeDomain
from benchspace.evaluation.deploy.shortlist import CUBLAS_ALGO, CUBLAS_HEURISTIC
from benchspace.evaluation.selector.calibration import Y_FLOOR
from benchspace.harness.errors import UsageError
from benchspace.harness.profiles.model import Profile

COLUMNS = ["M", "N", "K", "config", "kernel", "raster", "swizzle", "tflops"]


def measured_table(profile: Profile, bench: str | None = None) -> pd.DataFrame:
    """One row per measured (shape, configuration) of ``bench`` (default: the only bench
    whose rows name a ``kernel`` and fixed M, N, K): columns :data:`COLUMNS` (``kernel`` is
    ``cublas`` for every cuBLASLt row; ``tflops`` the median over repeats)."""
    names = [bench] if bench else list(profile.results)
    if bench and bench not in profile.results:
        raise UsageError(f"{profile.source}: no bench {bench!r}; it has {', '.join(names)}")
    records = []
    for name in names:
        for row in profile.results[name].rows:
            config, fixed = row.param("kernel"), row.fixed
            if not isinstance(config, str) or not {"M", "N", "K"} <= set(fixed):
                continue
            if row.value is None or not np.isfinite(row.value) or row.value <= 0:
                continue
            if config.startswith("cublas:"):
                kernel, raster, swizzle = CUBLAS, "H", 1
            else:
                parsed = parse_config(config)
                if parsed.splits != 1 or parsed.decomposition != "H":
                    continue  # Stream-K splits / decomposition: not a choice the header names
                kernel, raster, swizzle = parsed.name, parsed.raster, parsed.swizzle
            shape = (int(str(fixed["M"])), int(str(fixed["N"])), int(str(fixed["K"])))
            records.append((*shape, config, kernel, raster, swizzle, float(row.value)))
    if not records:
        raise UsageError(
            f"{profile.source}: no measured GEMM configurations (rows with a kernel and fixed "
            "M, N, K); measure a tune-shapes space first"
        )
    return pd.DataFrame.from_records(records, columns=COLUMNS)


def restrict_to_top(table: pd.DataFrame, short: pd.DataFrame, k: int) -> pd.DataFrame:
    """The rows of ``table`` among each shape's top ``k`` of ``short`` (a shortlist with M, N,
    K, rank, config), plus every cuBLASLt row."""
    top = short[short["rank"] <= k][["M", "N", "K", "config"]].assign(_keep=True)
    merged = table.merge(top, on=["M", "N", "K", "config"], how="left")
    keep = merged["_keep"].fillna(False).astype(bool) | merged["config"].str.startswith("cublas:")
    return table[keep.to_numpy()].reset_index(drop=True)


@dataclass(frozen=True, kw_only=True, slots=True)
class ShapeWinner:
    """One measured shape: its winner among the dispatch choices, CUTLASS and cuBLAS."""

    shape: tuple[int, int, int]
    winner: str
    """The fastest CUTLASS configuration or ``cublas:heuristic``."""
    winner_tflops: float
    cutlass: str
    cutlass_tflops: float
    """The best CUTLASS configuration (nan when none ran)."""
    cublas_tflops: float
    """``cublas:heuristic`` (nan when not measured)."""
    cublas_best_tflops: float
    """The best ``cublas:algo<i>`` (nan when not measured)."""


def _best(records: list[dict[str, Any]]) -> tuple[str, float]:
    if not records:
        return "", math.nan
    top = max(records, key=lambda r: float(r["tflops"]))
    return str(top["config"]), float(top["tflops"])


def shape_summary(table: pd.DataFrame) -> list[ShapeWinner]:
    """Per shape (sorted): see :class:`ShapeWinner`."""
    by_shape: dict[tuple[int, int, int], list[dict[str, Any]]] = {}
    for record in table.to_dict("records"):
        shape = (int(record["M"]), int(record["N"]), int(record["K"]))
        by_shape.setdefault(shape, []).append({str(k): v for k, v in record.items()})
    out = []
    for shape in sorted(by_shape):
        rows = by_shape[shape]
        cutlass = [r for r in rows if r["kernel"] != CUBLAS]
        heuristic = [r for r in rows if r["config"] == CUBLAS_HEURISTIC]
        algos = [r for r in rows if str(r["config"]).startswith(CUBLAS_ALGO)]
        winner, winner_t = _best(cutlass + heuristic)
        best_c, best_t = _best(cutlass)
        out.append(
            ShapeWinner(
                shape=shape,
                winner=winner,
                winner_tflops=winner_t,
                cutlass=best_c,
                cutlass_tflops=best_t,
                cublas_tflops=_best(heuristic)[1],
                cublas_best_tflops=_best(algos)[1],
            )
        )
    return out


def measured_dispatch(
    table: pd.DataFrame,
    sms: int,
    spec: GemmHeaderSpec | None = None,
    origin: str = "measured winners",
) -> GemmDispatch:
    """The dispatch tree whose leaves run each measured shape's winner (see the docstring)."""
    spec = spec or GemmHeaderSpec()
    choices_rows = table[(table["kernel"] != CUBLAS) | (table["config"] == CUBLAS_HEURISTIC)]
    if choices_rows.empty:
        raise UsageError("no CUTLASS or cublas:heuristic measurements to choose from")
    keys = ["kernel", "raster", "swizzle"]
    candidates = choices_rows[keys].drop_duplicates().sort_values(keys).reset_index(drop=True)
    keyed = [(str(k), str(r), int(str(s))) for k, r, s in candidates.to_numpy().tolist()]
    column = {key: i for i, key in enumerate(keyed)}
    shapes = choices_rows[["M", "N", "K"]].drop_duplicates().sort_values(["M", "N", "K"])
    shape_at = {tuple(int(v) for v in r): i for i, r in enumerate(shapes.to_numpy())}
    best = np.full((len(shapes), len(candidates)), 0.0)
    rows = choices_rows[["M", "N", "K", "kernel", "raster", "swizzle", "tflops"]].to_numpy()
    for m, n, k, kernel, raster, swizzle, tflops in rows.tolist():
        i = shape_at[(int(m), int(n), int(k))]
        j = column[(str(kernel), str(raster), int(swizzle))]
        best[i, j] = max(best[i, j], float(tflops))
    top = best.max(axis=1, keepdims=True)
    logy = np.where(best > 0, np.log(np.maximum(best, 1e-300) / top), np.log(Y_FLOOR))
    points = shapes.to_numpy(dtype=np.int64)
    features = list(shape_features(ShapeDomain(), sms, spec.edges_per_octave))
    for d in range(3):  # the shapes' own sizes as edges: every distinct shape can be a leaf
        own = {int(v) for v in points[:, d]}
        features[d] = dataclasses.replace(
            features[d], edges=tuple(sorted(set(features[d].edges) | own))
        )
    edges = [np.asarray(f.edges, dtype=np.int64) for f in features]
    tree = grow_tree(feature_matrix(points, sms), logy, edges, max(len(points), 1), min_samples=1)
    choices = tuple(GemmChoice(kernel=k, raster=r, swizzle=s) for k, r, s in keyed)
    used = {choices[leaf.choice].kernel for leaf in tree.leaves}
    cublas_leaves = sum(choices[leaf.choice].kernel == CUBLAS for leaf in tree.leaves)
    note = (
        f"A decision tree on M, N, K and their padding and tile counts per wave with one leaf "
        f"per measured shape where the shapes differ ({len(tree.leaves)} leaves for "
        f"{len(points)} shapes): each leaf runs the fastest configuration measured at its "
        "shape, CUTLASS kernels and cuBLAS (cublas:heuristic, what a plain cuBLAS call runs) "
        "timed in the same rounds; a shape that was not measured runs the winner of the leaf "
        f"it falls in ({cublas_leaves} leaves cublas). `cublas` means: call cuBLAS instead of "
        f"a CUTLASS kernel. Override: {spec.env_var}=<kernel name> (or cublas) selects that "
        "entry for every shape; anything else keeps the compiled choice."
    )
    return GemmDispatch(
        spec=spec,
        tree=tree,
        choices=choices,
        kernels=(*sorted(used - {CUBLAS}), CUBLAS),
        origin=origin,
        features=tuple(features),
        sms=sms,
        cublas_leaves=cublas_leaves,
        note=note,
    )


def dispatch_hits(dispatch: GemmDispatch, summary: Sequence[ShapeWinner]) -> list[bool]:
    """Per entry of :func:`shape_summary`: does the header run the shape's winner there?"""
    chosen = dispatch.choose(np.array([w.shape for w in summary], dtype=np.int64))
    out = []
    for c, winner in zip(chosen, (w.winner for w in summary), strict=True):
        choice = dispatch.choices[int(c)]
        text = (
            CUBLAS_HEURISTIC
            if choice.kernel == CUBLAS
            else parse_config(f"{choice.kernel}:{choice.raster}:{choice.swizzle}").text
        )
        out.append(text == winner)
    return out
